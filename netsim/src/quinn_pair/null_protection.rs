//! Null packet protection on quinn's crypto traits (declared once for both stacks in
//! `crate::pair::null_protection`).

crate::pair::null_protection::null_protection! {
    stack: quinn,
    proto: quinn_proto,
    cid: &ConnectionId,
    packet_args: (),
    test_args: (),
    receiver: arc
}
