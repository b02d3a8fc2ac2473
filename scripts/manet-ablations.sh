# The composite's ablations, declared once for scripts/manet-evaluation.sh and
# scripts/regimes-evaluation.sh: DIR:SETTING, each one mechanism off (a switch's directory is its
# knob; `probe_backoff` is `probe_backoff_max=1`, `queue_free_loss_events` is its value 1, the
# threshold alone; SETTING is `harness sweep --set manet.SETTING`).
# shellcheck disable=SC2034 # read by the scripts that source this file
manet_ablations=(backlog_bound:backlog_bound=false cubic_growth:cubic_growth=false
  westwood_floor:westwood_floor=false competitive_mode:competitive_mode=false
  probe_restore:probe_restore=false probe_backoff:probe_backoff_max=1
  slow_start_exit:slow_start_exit=false reset_base_on_timeout:reset_base_on_timeout=false
  empty_queue_css:empty_queue_css=false mean_round_rtt:mean_round_rtt=false
  refresh_base_rtt:refresh_base_rtt=false veno_random_loss:veno_random_loss=false
  jitter_allowance:jitter_allowance=false bdp_cap:bdp_cap=false rate_check:rate_check=false
  rate_check_loss_backoff:rate_check_loss_backoff=false
  rate_check_standing_queue:rate_check_standing_queue=false queue_free_loss:queue_free_loss=false
  queue_free_loss_spread:queue_free_loss_spread=false
  queue_free_loss_events:queue_free_loss_events=1
  competitive_mode_jitter:competitive_mode_jitter=false
  rate_check_slow_start:rate_check_slow_start=false)
