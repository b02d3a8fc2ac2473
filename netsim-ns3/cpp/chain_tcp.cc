// ns3-chain-tcp: ns-3's own TCP over a static 802.11b ad hoc chain, written from ns-3's helpers
// alone (no shim): the yardstick of the backend's TCP controllers (`tcp-newreno`, ...). The
// backend must deliver the same bytes on the same chain and seed.
//
// The network is the one the backend builds for `topology = chain`: `hops + 1` nodes `spacing`
// metres apart in a row, IEEE 802.11b ad hoc, no RTS/CTS, 7/4 MAC retries, a `queue`-packet
// WifiMacQueue as the only interface queue (the traffic-control queue disc removed), IPv4 only,
// AODV (with its GratuitousReply flag as given). The rate: 2 Mb/s data and 1 Mb/s control
// (`rate_control=constant`), or ns-3's Minstrel or Ideal manager. With
// `standard=802.11n-2.4GHz` or `802.11n-5GHz` the chain is 802.11n (HT) on a 20 MHz channel
// of that band with ns-3's HT defaults (one stream, long guard interval) but no A-MPDU
// aggregation (BE_MaxAmpduSize 0, as the backend): data at HT MCS `mcs`
// and control at the band's 6 Mb/s OFDM rate (`rate_control=constant`), or ns-3's Minstrel-HT
// or Ideal manager. `standard=802.11a` or `802.11g` sends data at `ofdm_mbps` and control at
// 6 Mb/s. With `routing=hwmp` the nodes form an IEEE 802.11s mesh instead of an ad hoc network
// (ns-3's MeshHelper with the Dot11sStack: peering and HWMP, one interface on channel 100,
// ns-3's mesh defaults otherwise), IP runs over the mesh point devices with static routing
// (one subnet), and AODV is not installed. The radio: a unit disk of
// `range` metres and no other loss model (`propagation=range`), or log-distance path loss then
// Nakagami-m fading (`propagation=nakagami`), both with ns-3's attribute defaults, so that the
// backend's documented defaults are checked against ns-3's own. ns-3 numbers random streams
// from a process-wide counter unless told otherwise, so the streams are assigned explicitly in
// the backend's order: Wi-Fi from 0, then the channel's loss models, then the IP stack, then
// AODV. One BulkSend application on the first node sends to a PacketSink on the last from
// `start_s` to `start_s + duration_s`; the run ends there.
//
// usage: ns3-chain-tcp key=value ...   keys (defaults): hops (4), run (1), duration_s (60),
//        start_s (0), segment (1428), queue (50), spacing (200), range (250), gratuitous (1),
//        variant (newreno | cubic | vegas | westwood | westwoodplus),
//        rate_control (constant | minstrel | ideal | minstrel_ht), propagation (range | nakagami),
//        standard (802.11b | 802.11a | 802.11g | 802.11n-2.4GHz | 802.11n-5GHz), mcs (7; 802.11n
//        constant only), ofdm_mbps (6; 802.11a/g constant only), routing (aodv | hwmp),
//        max_packet_failure (2, ns-3's; hwmp: PeerLink::MaxPacketFailure)
// prints: "rx_bytes=N" (bytes the sink application got) and "events=N"
#include "ns3/aodv-module.h"
#include "ns3/applications-module.h"
#include "ns3/core-module.h"
#include "ns3/internet-module.h"
#include "ns3/mesh-module.h"
#include "ns3/mobility-module.h"
#include "ns3/network-module.h"
#include "ns3/propagation-module.h"
#include "ns3/tcp-westwood.h"
#include "ns3/traffic-control-module.h"
#include "ns3/wifi-module.h"

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
                     "ns3-chain-tcp: %s = '%s' is out of range: it must be a number in [%g, %g]\n",
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
    double hops = 4, run = 1, duration_s = 60, start_s = 0, segment = 1428, queue = 50, spacing = 200,
           range = 250, gratuitous = 1, mcs = 7, ofdm_mbps = 6, maxPacketFailure = 2;
    std::string variant = "newreno";
    std::string rateControl = "constant";
    std::string propagation = "range";
    std::string standard = "802.11b";
    std::string routing = "aodv";
    for (int i = 1; i < argc; ++i)
    {
        std::string arg = argv[i];
        size_t eq = arg.find('=');
        if (eq == std::string::npos)
        {
            std::fprintf(stderr, "ns3-chain-tcp: expected key=value, got '%s'\n", argv[i]);
            return 2;
        }
        std::string key = arg.substr(0, eq);
        const char* v = argv[i] + eq + 1;
        if (key == "hops") hops = parse(key, v, 1, 100);
        else if (key == "run") run = parse(key, v, 1, 1e9);
        else if (key == "duration_s") duration_s = parse(key, v, 0.001, 1e5);
        else if (key == "start_s") start_s = parse(key, v, 0, 1e5);
        else if (key == "segment") segment = parse(key, v, 100, 2200);
        else if (key == "queue") queue = parse(key, v, 1, 1e5);
        else if (key == "spacing") spacing = parse(key, v, 1, 1e5);
        else if (key == "range") range = parse(key, v, 1, 1e5);
        else if (key == "gratuitous") gratuitous = parse(key, v, 0, 1);
        else if (key == "variant") variant = v;
        else if (key == "rate_control") rateControl = v;
        else if (key == "propagation") propagation = v;
        else if (key == "standard") standard = v;
        else if (key == "mcs") mcs = parse(key, v, 0, 7);
        else if (key == "ofdm_mbps") ofdm_mbps = parse(key, v, 6, 54);
        else if (key == "routing") routing = v;
        else if (key == "max_packet_failure") maxPacketFailure = parse(key, v, 1, 65535);
        else
        {
            std::fprintf(stderr,
                         "ns3-chain-tcp: unknown key '%s' (hops, run, duration_s, start_s, segment, "
                         "queue, spacing, range, gratuitous, variant, rate_control, propagation, standard, mcs, "
                         "ofdm_mbps, routing, max_packet_failure)\n",
                         key.c_str());
            return 2;
        }
    }
    bool ht = standard == "802.11n-2.4GHz" || standard == "802.11n-5GHz";
    bool ofdm = standard == "802.11a" || standard == "802.11g";
    if (!ht && !ofdm && standard != "802.11b")
    {
        std::fprintf(stderr,
                     "ns3-chain-tcp: standard = '%s' is unknown: it must be 802.11b, 802.11a, "
                     "802.11g, 802.11n-2.4GHz or 802.11n-5GHz\n",
                     standard.c_str());
        return 2;
    }
    if (routing != "aodv" && routing != "hwmp")
    {
        std::fprintf(stderr,
                     "ns3-chain-tcp: routing = '%s' is unknown: it must be aodv or hwmp\n",
                     routing.c_str());
        return 2;
    }
    bool mesh = routing == "hwmp";
    const char* manager = rateControl == "minstrel"      ? "ns3::MinstrelWifiManager"
                          : rateControl == "ideal"       ? "ns3::IdealWifiManager"
                          : rateControl == "minstrel_ht" ? "ns3::MinstrelHtWifiManager"
                                                         : nullptr;
    if (rateControl != "constant" && !manager)
    {
        std::fprintf(stderr,
                     "ns3-chain-tcp: rate_control = '%s' is unknown: it must be constant, minstrel, "
                     "ideal or minstrel_ht\n",
                     rateControl.c_str());
        return 2;
    }
    if (propagation != "range" && propagation != "nakagami")
    {
        std::fprintf(stderr,
                     "ns3-chain-tcp: propagation = '%s' is unknown: it must be range or nakagami\n",
                     propagation.c_str());
        return 2;
    }
    const char* socketType = variant == "newreno"        ? "ns3::TcpNewReno"
                             : variant == "cubic"        ? "ns3::TcpCubic"
                             : variant == "vegas"        ? "ns3::TcpVegas"
                             : variant == "westwood"     ? "ns3::TcpWestwood"
                             : variant == "westwoodplus" ? "ns3::TcpWestwood"
                                                         : nullptr;
    if (!socketType)
    {
        std::fprintf(stderr,
                     "ns3-chain-tcp: variant = '%s' is unknown: it must be newreno, cubic, vegas, "
                     "westwood or westwoodplus\n",
                     variant.c_str());
        return 2;
    }

    RngSeedManager::SetSeed(1);
    RngSeedManager::SetRun(uint64_t(run));
    Config::SetDefault("ns3::WifiMacQueue::MaxSize",
                       QueueSizeValue(QueueSize(QueueSizeUnit::PACKETS, uint32_t(queue))));
    Config::SetDefault("ns3::aodv::RoutingProtocol::GratuitousReply", BooleanValue(gratuitous != 0));
    Config::SetDefault("ns3::TcpL4Protocol::SocketType", TypeIdValue(TypeId::LookupByName(socketType)));
    // RFC 6582's NewReno recovery (ns-3's default is PRR).
    Config::SetDefault("ns3::TcpL4Protocol::RecoveryType", TypeIdValue(TcpClassicRecovery::GetTypeId()));
    Config::SetDefault("ns3::TcpSocket::SegmentSize", UintegerValue(uint32_t(segment)));
    Config::SetDefault("ns3::TcpWestwood::ProtocolType",
                       EnumValue(variant == "westwoodplus" ? TcpWestwood::WESTWOODPLUS : TcpWestwood::WESTWOOD));

    uint32_t n = uint32_t(hops) + 1;
    NodeContainer nodes;
    nodes.Create(n);
    MobilityHelper mobility;
    mobility.SetPositionAllocator("ns3::GridPositionAllocator",
                                  "MinX", DoubleValue(0.0),
                                  "MinY", DoubleValue(0.0),
                                  "DeltaX", DoubleValue(spacing),
                                  "DeltaY", DoubleValue(spacing),
                                  "GridWidth", UintegerValue(n),
                                  "LayoutType", StringValue("RowFirst"));
    mobility.SetMobilityModel("ns3::ConstantPositionMobilityModel");
    mobility.Install(nodes);

    WifiHelper wifi;
    YansWifiPhyHelper phy;
    std::string dataMode = "DsssRate2Mbps";
    std::string controlMode = "DsssRate1Mbps";
    if (ht)
    {
        bool band24 = standard == "802.11n-2.4GHz";
        wifi.SetStandard(WIFI_STANDARD_80211n);
        phy.Set("ChannelSettings", StringValue(band24 ? "{0, 20, BAND_2_4GHZ, 0}" : "{0, 20, BAND_5GHZ, 0}"));
        // No A-MPDU aggregation (and so no block-ACK agreements), as the backend: ns-3 3.37
        // aborts on lossy multi-hop chains with it.
        Config::SetDefault("ns3::WifiMac::BE_MaxAmpduSize", UintegerValue(0));
        dataMode = "HtMcs" + std::to_string(int(mcs));
        controlMode = band24 ? "ErpOfdmRate6Mbps" : "OfdmRate6Mbps";
    }
    else if (ofdm)
    {
        bool a = standard == "802.11a";
        wifi.SetStandard(a ? WIFI_STANDARD_80211a : WIFI_STANDARD_80211g);
        char mode[32];
        std::snprintf(mode, sizeof(mode), "%sRate%gMbps", a ? "Ofdm" : "ErpOfdm", ofdm_mbps);
        dataMode = mode;
        controlMode = a ? "OfdmRate6Mbps" : "ErpOfdmRate6Mbps";
    }
    else
    {
        wifi.SetStandard(WIFI_STANDARD_80211b);
    }
    // The rate manager, on the ad hoc WifiHelper or on the MeshHelper.
    auto setManager = [&](auto& helper) {
        if (rateControl == "constant")
        {
            helper.SetRemoteStationManager("ns3::ConstantRateWifiManager",
                                           "DataMode", StringValue(dataMode),
                                           "ControlMode", StringValue(controlMode),
                                           "MaxSsrc", UintegerValue(7),
                                           "MaxSlrc", UintegerValue(4),
                                           "RtsCtsThreshold", UintegerValue(65535));
        }
        else
        {
            helper.SetRemoteStationManager(manager,
                                           "MaxSsrc", UintegerValue(7),
                                           "MaxSlrc", UintegerValue(4),
                                           "RtsCtsThreshold", UintegerValue(65535));
        }
    };
    YansWifiChannelHelper channel;
    channel.SetPropagationDelay("ns3::ConstantSpeedPropagationDelayModel");
    if (propagation == "range")
    {
        channel.AddPropagationLoss("ns3::RangePropagationLossModel", "MaxRange", DoubleValue(range));
    }
    else
    {
        channel.AddPropagationLoss("ns3::LogDistancePropagationLossModel");
        channel.AddPropagationLoss("ns3::NakagamiPropagationLossModel");
    }
    Ptr<YansWifiChannel> yans = channel.Create();
    phy.SetChannel(yans);
    NetDeviceContainer devices;
    int64_t stream = 0;
    if (mesh)
    {
        Config::SetDefault("ns3::dot11s::PeerLink::MaxPacketFailure",
                           UintegerValue(static_cast<uint32_t>(maxPacketFailure)));
        MeshHelper meshHelper;
        meshHelper.SetStackInstaller("ns3::Dot11sStack");
        meshHelper.SetSpreadInterfaceChannels(MeshHelper::ZERO_CHANNEL);
        meshHelper.SetNumberOfInterfaces(1);
        meshHelper.SetMacType();
        meshHelper.SetStandard(ht ? WIFI_STANDARD_80211n
                               : standard == "802.11a" ? WIFI_STANDARD_80211a
                               : standard == "802.11g" ? WIFI_STANDARD_80211g
                                                       : WIFI_STANDARD_80211b);
        setManager(meshHelper);
        devices = meshHelper.Install(phy, nodes);
        stream = meshHelper.AssignStreams(devices, 0);
    }
    else
    {
        setManager(wifi);
        WifiMacHelper mac;
        mac.SetType("ns3::AdhocWifiMac");
        devices = wifi.Install(phy, mac, nodes);
        stream = wifi.AssignStreams(devices, 0);
    }
    stream += channel.AssignStreams(yans, stream);

    AodvHelper aodv;
    Ipv4StaticRoutingHelper staticRouting;
    InternetStackHelper internet;
    internet.SetIpv6StackInstall(false);
    if (mesh)
    {
        internet.SetRoutingHelper(staticRouting);
    }
    else
    {
        internet.SetRoutingHelper(aodv);
    }
    internet.Install(nodes);
    stream += internet.AssignStreams(nodes, stream);
    if (!mesh)
    {
        aodv.AssignStreams(nodes, stream);
    }

    Ipv4AddressHelper addresses;
    addresses.SetBase("10.1.0.0", "255.255.0.0");
    Ipv4InterfaceContainer interfaces = addresses.Assign(devices);
    // The traffic-control queue disc, where Assign installed one (not on mesh point devices).
    for (uint32_t i = 0; i < devices.GetN(); ++i)
    {
        Ptr<TrafficControlLayer> tc = devices.Get(i)->GetNode()->GetObject<TrafficControlLayer>();
        if (tc && tc->GetRootQueueDiscOnDevice(devices.Get(i)))
        {
            tc->DeleteRootQueueDiscOnDevice(devices.Get(i));
        }
    }

    const uint16_t port = 9;
    BulkSendHelper sender("ns3::TcpSocketFactory", InetSocketAddress(interfaces.GetAddress(n - 1), port));
    sender.SetAttribute("MaxBytes", UintegerValue(0));
    sender.SetAttribute("SendSize", UintegerValue(uint32_t(segment)));
    ApplicationContainer source = sender.Install(nodes.Get(0));
    source.Start(Seconds(start_s));
    source.Stop(Seconds(start_s + duration_s));
    PacketSinkHelper sink("ns3::TcpSocketFactory", InetSocketAddress(Ipv4Address::GetAny(), port));
    ApplicationContainer receiver = sink.Install(nodes.Get(n - 1));
    receiver.Start(Seconds(0));

    Simulator::Stop(Seconds(start_s + duration_s));
    Simulator::Run();
    Ptr<PacketSink> app = DynamicCast<PacketSink>(receiver.Get(0));
    std::printf("rx_bytes=%llu\n", (unsigned long long)app->GetTotalRx());
    std::printf("events=%llu\n", (unsigned long long)Simulator::GetEventCount());
    Simulator::Destroy();
    return 0;
}
