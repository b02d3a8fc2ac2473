//! Null packet protection on quinn's crypto traits (declared once for both stacks in
//! `crate::pair::null_protection`).

crate::pair::null_protection::null_protection! {
    stack: quinn,
    proto: quinn_proto,
    cid: &ConnectionId,
    cid_of: std::convert::identity::<&ConnectionId>,
    packet_args: (),
    fixed_args: (),
    receiver: arc
}
