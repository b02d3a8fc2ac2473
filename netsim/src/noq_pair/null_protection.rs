//! Null packet protection on noq's crypto traits (declared once for both stacks in
//! `crate::pair::null_protection`).

crate::pair::null_protection::null_protection! {
    stack: noq,
    proto: noq_proto,
    cid: ConnectionId,
    packet_args: (_path_id: noq::PathId),
    test_args: (noq::PathId::ZERO),
    receiver: ref
}
