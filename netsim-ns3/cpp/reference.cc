// ns3-reference: a standalone ns-3 program, the yardstick of netsim-ns3's transparency test.
//
// It builds a scenario with the same scenario code as the Rust-driven simulation, lets ns-3
// itself send a UDP constant-bit-rate flow from endpoint A to endpoint B (every send an ns-3
// event scheduled before the run), runs ns-3 once, uninterrupted, to the end, and prints each
// delivery as "side at_ns len". The Rust side runs the same scenario in lock-step (datagrams
// injected from Rust, ns-3 advanced in steps) and must see the same deliveries.
//
// usage: ns3-reference key=value ...   (keys: see the table below; times in ns)
#include "shim.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

int
main(int argc, char** argv)
{
    Ns3Scenario sc;
    std::memset(&sc, 0, sizeof(sc));
    sc.run = 1;
    sc.nodes = 50;
    sc.area_x_m = 1200;
    sc.area_y_m = 1200;
    sc.topology = NS3_TOPO_RANDOM_WAYPOINT;
    sc.speed_min_mps = 20;
    sc.speed_max_mps = 20;
    sc.pause_s = 30;
    sc.spacing_m = 200;
    sc.grid_columns = 1;
    sc.trace_path = "";
    sc.standard = NS3_STD_80211B;
    sc.data_mode = "DsssRate2Mbps";
    sc.control_mode = "DsssRate1Mbps";
    sc.propagation = NS3_PROP_RANGE;
    sc.range_m = 250;
    sc.rts_cts = 0;
    sc.short_retry_limit = 7;
    sc.long_retry_limit = 4;
    sc.queue_packets = 50;
    sc.routing = NS3_ROUTING_AODV;
    Ns3Pair pair = {0, 49};
    sc.pair_count = 1;
    sc.pairs = &pair;
    sc.sample_ns = 100000000;
    sc.arp_dead_timeout_ns = 100000000000LL; // ns-3's defaults
    sc.arp_pending_packets = 3;
    sc.aodv_gratuitous_reply = 0; // the backend's default (AodvConfig)
    sc.mesh_max_packet_failure = 2; // ns-3's default (MeshConfig)
    int64_t start = 1000000000, interval = 9600000, end = 30000000000LL;
    uint32_t count = 0, len = 1200;
    std::string data_mode = sc.data_mode, control_mode = sc.control_mode;
    for (int i = 1; i < argc; ++i)
    {
        std::string arg = argv[i];
        size_t eq = arg.find('=');
        if (eq == std::string::npos)
        {
            std::fprintf(stderr, "ns3-reference: expected key=value, got '%s'\n", argv[i]);
            return 2;
        }
        std::string key = arg.substr(0, eq);
        const char* v = argv[i] + eq + 1;
        if (key == "run") sc.run = std::strtoull(v, nullptr, 10);
        else if (key == "nodes") sc.nodes = std::strtoul(v, nullptr, 10);
        else if (key == "area_x") sc.area_x_m = std::strtod(v, nullptr);
        else if (key == "area_y") sc.area_y_m = std::strtod(v, nullptr);
        else if (key == "topology") sc.topology = std::strtoul(v, nullptr, 10);
        else if (key == "speed_min") sc.speed_min_mps = std::strtod(v, nullptr);
        else if (key == "speed_max") sc.speed_max_mps = std::strtod(v, nullptr);
        else if (key == "pause") sc.pause_s = std::strtod(v, nullptr);
        else if (key == "spacing") sc.spacing_m = std::strtod(v, nullptr);
        else if (key == "columns") sc.grid_columns = std::strtoul(v, nullptr, 10);
        else if (key == "range") sc.range_m = std::strtod(v, nullptr);
        else if (key == "rts_cts") sc.rts_cts = std::atoi(v);
        else if (key == "queue") sc.queue_packets = std::strtoul(v, nullptr, 10);
        else if (key == "ber") sc.bit_error_rate = std::strtod(v, nullptr);
        else if (key == "routing") sc.routing = std::strtoul(v, nullptr, 10);
        else if (key == "gratuitous") sc.aodv_gratuitous_reply = std::atoi(v);
        else if (key == "source") pair.source = std::strtoul(v, nullptr, 10);
        else if (key == "sink") pair.sink = std::strtoul(v, nullptr, 10);
        else if (key == "data_mode") data_mode = v;
        else if (key == "control_mode") control_mode = v;
        else if (key == "start") start = std::strtoll(v, nullptr, 10);
        else if (key == "interval") interval = std::strtoll(v, nullptr, 10);
        else if (key == "count") count = std::strtoul(v, nullptr, 10);
        else if (key == "len") len = std::strtoul(v, nullptr, 10);
        else if (key == "end") end = std::strtoll(v, nullptr, 10);
        else
        {
            std::fprintf(stderr, "ns3-reference: unknown key '%s'\n", key.c_str());
            return 2;
        }
    }
    sc.data_mode = data_mode.c_str();
    sc.control_mode = control_mode.c_str();
    char err[256] = {0};
    if (ns3_create(&sc, err, sizeof(err)) != 0)
    {
        std::fprintf(stderr, "ns3-reference: %s\n", err);
        return 1;
    }
    ns3_native_cbr(0, start, interval, count, len);
    ns3_run_until(end);
    Ns3Delivery d;
    std::vector<uint8_t> buf(65536);
    while (ns3_pop(&d, buf.data(), uint32_t(buf.size())))
    {
        std::printf("%u %lld %u\n", d.endpoint, (long long)d.at_ns, d.len);
    }
    ns3_destroy();
    return 0;
}
