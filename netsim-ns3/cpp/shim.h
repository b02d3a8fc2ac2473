// The narrow C interface between netsim-ns3 (Rust) and ns-3 3.37 (C++).
//
// Every struct here is mirrored field for field by `src/ffi.rs` (#[repr(C)]). Times are
// nanoseconds of ns-3 simulated time. One simulation exists per process at a time (ns-3's
// simulator is a process-global singleton); the Rust side enforces that with a lock.
#ifndef NETSIM_NS3_SHIM_H
#define NETSIM_NS3_SHIM_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

// Topologies.
enum { NS3_TOPO_RANDOM_WAYPOINT = 0, NS3_TOPO_CHAIN = 1, NS3_TOPO_GRID = 2, NS3_TOPO_NS2_TRACE = 3 };
// 802.11 standards.
// 802.11n is one spatial stream on a 20 MHz channel in the named band.
enum { NS3_STD_80211B = 0, NS3_STD_80211A = 1, NS3_STD_80211G = 2, NS3_STD_80211N_2_4GHZ = 3, NS3_STD_80211N_5GHZ = 4 };
// Propagation loss models.
enum { NS3_PROP_RANGE = 0, NS3_PROP_LOG_DISTANCE = 1, NS3_PROP_NAKAGAMI = 2 };
// Rate control (the WifiRemoteStationManager of every node).
enum { NS3_RATE_CONSTANT = 0, NS3_RATE_MINSTREL = 1, NS3_RATE_IDEAL = 2, NS3_RATE_MINSTREL_HT = 3 };
// Routing protocols. (DSR is not offered: Debian's ns-3 3.37 DSR module connects to WifiMac's
// obsolete TxErrHeader trace and aborts on any Wi-Fi node; see the crate's README.)
// NS3_ROUTING_HWMP is an 802.11s mesh (peering and HWMP at layer 2) with static IP routing.
enum { NS3_ROUTING_AODV = 0, NS3_ROUTING_OLSR = 1, NS3_ROUTING_DSDV = 2, NS3_ROUTING_HWMP = 3 };

// One background UDP constant-bit-rate flow between two nodes.
typedef struct {
    uint32_t from;
    uint32_t to;
    double rate_bps;
    uint32_t packet_bytes;
    int64_t start_ns;
    int64_t stop_ns;
} Ns3Cbr;

// One pair of endpoints: endpoint A (side 0) on `source`, endpoint B (side 1) on `sink`.
// Endpoint numbers across the C interface are pair * 2 + side.
typedef struct {
    uint32_t source;
    uint32_t sink;
} Ns3Pair;

// A validated scenario (the Rust side validates every field before calling ns3_create).
typedef struct {
    uint64_t run;          // ns-3 RngSeedManager run number (seed is fixed at 1)
    uint32_t nodes;
    double area_x_m;
    double area_y_m;
    uint32_t topology;     // NS3_TOPO_*
    double speed_min_mps;  // random waypoint
    double speed_max_mps;
    double pause_s;
    double spacing_m;      // chain and grid
    uint32_t grid_columns;
    const char* trace_path; // ns-2 mobility trace (NS3_TOPO_NS2_TRACE), NUL-terminated
    uint32_t standard;     // NS3_STD_*
    const char* data_mode; // ns-3 WifiMode name, e.g. "DsssRate2Mbps"
    const char* control_mode;
    uint32_t propagation;  // NS3_PROP_*
    double range_m;        // NS3_PROP_RANGE
    int32_t rts_cts;       // 1: RTS/CTS before every data frame; 0: never
    uint32_t short_retry_limit;
    uint32_t long_retry_limit;
    uint32_t queue_packets; // the interface queue (WifiMacQueue) in packets
    uint32_t routing;      // NS3_ROUTING_*
    uint32_t pair_count;   // >= 1
    const Ns3Pair* pairs;  // the endpoint pairs (pair 0 first)
    int64_t sample_ns;     // route-availability sampling period
    uint32_t background_count;
    const Ns3Cbr* background;
    double bit_error_rate;  // per received bit, every frame at every node (0: none)
    int64_t arp_dead_timeout_ns;   // how long a failed ARP resolution blocks its neighbour
    uint32_t arp_pending_packets;  // packets held per neighbour while ARP resolves it
    int32_t aodv_gratuitous_reply; // AODV's GratuitousReply (ns-3's default: 1)
    int64_t epoch_ns;              // when the endpoints start: the origin of the delivery gaps
    uint32_t rate_control;         // NS3_RATE_*; data_mode is used by NS3_RATE_CONSTANT only
    // NS3_PROP_NAKAGAMI: LogDistancePropagationLossModel's attributes, then
    // NakagamiPropagationLossModel's.
    double path_loss_exponent;
    double reference_distance_m;
    double reference_loss_db;
    double nakagami_distance1_m;
    double nakagami_distance2_m;
    double nakagami_m0;
    double nakagami_m1;
    double nakagami_m2;
    uint32_t mesh_max_packet_failure; // NS3_ROUTING_HWMP: PeerLink::MaxPacketFailure (ns-3's: 2)
} Ns3Scenario;

// One direction's accounting over every pair: A->B is index 0, B->A index 1.
typedef struct {
    uint64_t offered;
    uint64_t offered_bytes;
    uint64_t delivered;
    uint64_t delivered_bytes;
    uint64_t drop_mac_retry;   // WifiMac DroppedMpdu: retry limit reached
    uint64_t drop_mac_queue;   // WifiMac DroppedMpdu: interface queue full or lifetime expired
    uint64_t drop_no_route;    // no route at the source (send refused) or at a forwarder
    uint64_t drop_route_error; // routing buffer: AODV's queue timed out or overflowed, or a RERR
    uint64_t drop_ttl;
    uint64_t drop_other;       // ARP gave up, and any other reason
    uint64_t hops_sum;         // over delivered datagrams whose path was traced
    uint64_t hops_samples;
    uint64_t route_changes;    // delivered datagrams whose forwarding path differed from the previous one's
    int64_t max_gap_ns;        // the longest time any pair went without a delivery in this
                               // direction, from epoch_ns up to now (the final gap included)
} Ns3DirectionStats;

typedef struct {
    Ns3DirectionStats direction[2];
    uint64_t mac_tx_data_failed;       // every failed data-frame attempt, all traffic
    uint64_t mac_tx_final_data_failed; // data frames given up after the retry limit, all traffic
    uint64_t background_sent;
    uint64_t background_received;
    uint64_t route_samples;            // geometric route-availability samples taken (one per pair)
    uint64_t route_samples_up;         // samples with a path within radio range
    uint64_t route_hops_sum;           // shortest-path hops over the samples that had one
    uint64_t events;                   // ns-3 events executed
    int64_t now_ns;
} Ns3Stats;

// One datagram delivered to an endpoint.
typedef struct {
    uint32_t endpoint;  // the receiving endpoint: pair * 2 + side (side 0 = A, 1 = B)
    uint32_t len;
    int64_t at_ns;
    uint64_t index;     // the index the sender gave it (ns3_send)
    uint32_t hops;      // 1 + the forwarders it crossed
    uint32_t reserved;
} Ns3Delivery;

// ns-3's own TCP between every pair (instead of the Rust side's datagrams).
enum { NS3_TCP_NEWRENO = 0, NS3_TCP_CUBIC = 1, NS3_TCP_VEGAS = 2, NS3_TCP_WESTWOOD = 3, NS3_TCP_WESTWOODPLUS = 4 };

// Bulk TCP flows: on every pair, flows_per_pair BulkSend applications on the source node, each
// to a PacketSink of its own on the sink node.
typedef struct {
    uint32_t variant;          // NS3_TCP_*
    uint32_t segment_bytes;    // TcpSocket::SegmentSize
    uint32_t flows_per_pair;   // >= 1
    uint32_t start_count;      // pair_count * flows_per_pair
    const int64_t* start_ns;   // each flow's start (absolute ns-3 time), flow = pair * flows_per_pair + k
    int64_t stop_ns;           // when every sender stops
    uint64_t max_bytes;        // per flow; 0: unbounded
} Ns3TcpBulk;

// One TCP flow, as its sender and its sink saw it.
typedef struct {
    uint32_t pair;
    uint32_t reserved;
    uint64_t rx_bytes;         // application bytes the sink received
    int64_t first_rx_ns;       // -1: none
    int64_t last_rx_ns;        // -1: none
    uint64_t segments_sent;    // data segments the sender transmitted (retransmissions included)
    uint64_t bytes_sent;       // their payload bytes
    uint64_t retransmissions;  // data segments sent again
    uint64_t timeouts;         // entries into CA_LOSS (retransmission timeouts)
    uint64_t fast_recoveries;  // entries into CA_RECOVERY
    uint64_t rtt_samples;      // samples of ns-3's RTT trace kept (ns3_tcp_rtt)
} Ns3TcpFlowStats;

// Builds the scenario. Returns 0, or -1 with a message in err.
int ns3_create(const Ns3Scenario* scenario, char* err, size_t err_len);
// Schedules a datagram from `endpoint` (pair * 2 + side) to the other endpoint of its pair at
// absolute time at_ns (>= now); `index` comes back with its delivery.
void ns3_send(uint32_t endpoint, int64_t at_ns, uint64_t index, const uint8_t* data, uint32_t len);
// Schedules `count` datagrams of `len` bytes from `endpoint`, every interval_ns from start_ns,
// sent by ns-3 events alone (the reference for stepping transparency).
void ns3_native_cbr(uint32_t endpoint, int64_t start_ns, int64_t interval_ns, uint32_t count, uint32_t len);
// Runs every event up to and including at_ns.
void ns3_run_until(int64_t at_ns);
// Pops the oldest delivery: copies at most cap bytes into buf. Returns 1, or 0 when none.
int ns3_pop(Ns3Delivery* out, uint8_t* buf, uint32_t cap);
void ns3_stats(Ns3Stats* out);
// The geometric route samples of `pair` where its state changed (the first sample included):
// copies up to `cap` of them into at_ns (sample times) and up (1: a path of in-range hops
// joined the pair, 0: none), and returns how many there are.
uint32_t ns3_route_changes(uint32_t pair, int64_t* at_ns, uint8_t* up, uint32_t cap);
int64_t ns3_now(void);
// Installs ns-3's TCP flows (after ns3_create, before any ns3_run_until). Returns 0, or -1 with
// a message in err.
int ns3_tcp_bulk(const Ns3TcpBulk* bulk, char* err, size_t err_len);
// The number of TCP flows (pair-major: flow = pair * flows_per_pair + k).
uint32_t ns3_tcp_flow_count(void);
// Flow `flow`'s statistics. Returns 1, or 0 for no such flow.
int ns3_tcp_flow(uint32_t flow, Ns3TcpFlowStats* out);
// Copies up to cap of flow `flow`'s RTT samples (ns) into out; returns how many it has.
uint32_t ns3_tcp_rtt(uint32_t flow, int64_t* out, uint32_t cap);
// Tears the simulation down (Simulator::Destroy and ns-3's global registries).
void ns3_destroy(void);

#ifdef __cplusplus
}
#endif
#endif
