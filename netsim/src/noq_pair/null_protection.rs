//! Null packet protection on noq's crypto traits (declared once for both stacks in
//! `crate::pair::null_protection`).

crate::pair::null_protection::null_protection! {
    stack: noq,
    proto: noq_proto,
    cid: ConnectionId,
    cid_of: |cid: &ConnectionId| *cid,
    packet_args: (_path_id: noq::PathId),
    fixed_args: (noq::PathId::ZERO),
    receiver: ref
}
