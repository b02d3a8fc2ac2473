// ns3-tcp-bulk: ns-3's own TCP NewReno carrying one bulk transfer over a point-to-point path,
// the yardstick of the emulator's whole-process speed (issue 18: "at least 8x faster than
// ns-3.37 TCP NewReno on the same scenario, as whole processes"; cc-bench's bench-report runs
// it beside `harness run` of the same path).
//
// The path is netsim's point-to-point link as the emulator benchmark sets it: a rate and a
// one-way delay per direction, a drop-tail queue of `queue` packets at each sender, and a
// packet error rate `per` on every packet in both directions. The sender writes for
// `duration_s` seconds (BulkSend, no byte limit), then the transfer drains for `drain_s`.
//
// usage: ns3-tcp-bulk key=value ...   keys (defaults): rate_bps (2000000), delay_ms (45),
//        per (0.005), queue (50), duration_s (100), drain_s (5), run (1)
// prints: "rx_bytes=N" (bytes the receiving application got) and "events=N" (ns-3 events run)
#include "ns3/applications-module.h"
#include "ns3/core-module.h"
#include "ns3/internet-module.h"
#include "ns3/network-module.h"
#include "ns3/point-to-point-module.h"
#include "ns3/traffic-control-module.h"

#include <cstdio>
#include <cstdlib>
#include <string>

using namespace ns3;

namespace
{

// A value of `key=value`, or exit 2 naming the key and what it must be.
double
parse(const std::string& key, const char* value, double min, double max)
{
    char* end = nullptr;
    double v = std::strtod(value, &end);
    if (end == value || *end != '\0' || !(v >= min && v <= max))
    {
        std::fprintf(stderr,
                     "ns3-tcp-bulk: %s = '%s' is out of range: it must be a number in [%g, %g]\n",
                     key.c_str(),
                     value,
                     min,
                     max);
        std::exit(2);
    }
    return v;
}

} // namespace

int
main(int argc, char** argv)
{
    double rate_bps = 2e6, delay_ms = 45, per = 0.005, queue = 50, duration_s = 100, drain_s = 5,
           run = 1;
    for (int i = 1; i < argc; ++i)
    {
        std::string arg = argv[i];
        size_t eq = arg.find('=');
        if (eq == std::string::npos)
        {
            std::fprintf(stderr, "ns3-tcp-bulk: expected key=value, got '%s'\n", argv[i]);
            return 2;
        }
        std::string key = arg.substr(0, eq);
        const char* v = argv[i] + eq + 1;
        if (key == "rate_bps") rate_bps = parse(key, v, 1e3, 1e11);
        else if (key == "delay_ms") delay_ms = parse(key, v, 0, 1e5);
        else if (key == "per") per = parse(key, v, 0, 0.999);
        else if (key == "queue") queue = parse(key, v, 1, 1e6);
        else if (key == "duration_s") duration_s = parse(key, v, 0.001, 1e6);
        else if (key == "drain_s") drain_s = parse(key, v, 0, 1e6);
        else if (key == "run") run = parse(key, v, 1, 1e9);
        else
        {
            std::fprintf(stderr,
                         "ns3-tcp-bulk: unknown key '%s' (rate_bps, delay_ms, per, queue, "
                         "duration_s, drain_s, run)\n",
                         key.c_str());
            return 2;
        }
    }

    RngSeedManager::SetSeed(1);
    RngSeedManager::SetRun(uint64_t(run));
    // TCP NewReno (RFC 6582's fast recovery, not ns-3's default PRR).
    Config::SetDefault("ns3::TcpL4Protocol::SocketType", TypeIdValue(TcpNewReno::GetTypeId()));
    Config::SetDefault("ns3::TcpL4Protocol::RecoveryType",
                       TypeIdValue(TcpClassicRecovery::GetTypeId()));
    // Full-size segments of a 1500-byte MTU, as QUIC fills its datagrams.
    Config::SetDefault("ns3::TcpSocket::SegmentSize", UintegerValue(1448));

    NodeContainer nodes;
    nodes.Create(2);
    PointToPointHelper p2p;
    p2p.SetDeviceAttribute("DataRate", DataRateValue(DataRate(uint64_t(rate_bps))));
    p2p.SetChannelAttribute("Delay", TimeValue(MilliSeconds(delay_ms)));
    p2p.SetQueue("ns3::DropTailQueue<Packet>",
                 "MaxSize",
                 QueueSizeValue(QueueSize(QueueSizeUnit::PACKETS, uint32_t(queue))));
    NetDeviceContainer devices = p2p.Install(nodes);
    for (uint32_t i = 0; i < devices.GetN(); ++i)
    {
        Ptr<RateErrorModel> errors = CreateObject<RateErrorModel>();
        errors->SetUnit(RateErrorModel::ERROR_UNIT_PACKET);
        errors->SetRate(per);
        errors->AssignStreams(int64_t(i));
        devices.Get(i)->SetAttribute("ReceiveErrorModel", PointerValue(errors));
    }

    InternetStackHelper internet;
    internet.Install(nodes);
    Ipv4AddressHelper addresses;
    addresses.SetBase("10.1.1.0", "255.255.255.0");
    Ipv4InterfaceContainer interfaces = addresses.Assign(devices);
    // The device's drop-tail queue is the only queue, as on netsim's link (Assign installs a
    // default queue disc in front of it).
    TrafficControlHelper().Uninstall(devices);

    const uint16_t port = 9;
    BulkSendHelper sender("ns3::TcpSocketFactory",
                          InetSocketAddress(interfaces.GetAddress(1), port));
    sender.SetAttribute("MaxBytes", UintegerValue(0));
    ApplicationContainer source = sender.Install(nodes.Get(0));
    source.Start(Seconds(0));
    source.Stop(Seconds(duration_s));
    PacketSinkHelper sink("ns3::TcpSocketFactory", InetSocketAddress(Ipv4Address::GetAny(), port));
    ApplicationContainer receiver = sink.Install(nodes.Get(1));
    receiver.Start(Seconds(0));

    Simulator::Stop(Seconds(duration_s + drain_s));
    Simulator::Run();
    Ptr<PacketSink> app = DynamicCast<PacketSink>(receiver.Get(0));
    std::printf("rx_bytes=%llu\n", (unsigned long long)app->GetTotalRx());
    std::printf("events=%llu\n", (unsigned long long)Simulator::GetEventCount());
    Simulator::Destroy();
    return 0;
}
