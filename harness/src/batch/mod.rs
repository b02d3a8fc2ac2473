//! Many runs: a grid's runs executed in parallel ([`sweep`]), sliced into [`shard`]s, kept in
//! resumable [`result_file`]s, each line sealed and checked ([`integrity`]); a grown grid's
//! sweep starting from another sweep's runs ([`adopt`]); shard outputs combined ([`merge`]);
//! a fast model's results against a reference's ([`calibrate`]).

pub mod adopt;
pub mod calibrate;
pub mod integrity;
pub mod merge;
pub mod provenance;
pub mod reidentify;
pub mod result_file;
pub mod shard;
pub mod sweep;
