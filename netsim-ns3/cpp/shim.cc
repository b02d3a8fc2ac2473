// netsim-ns3's C++ side: builds an 802.11 ad hoc network in ns-3 3.37, carries the Rust side's
// datagrams between pairs of UDP endpoints on it, and reports what the network did with them.
//
// The Rust side drives it in lock-step (see src/medium.rs): it schedules each datagram at its
// exact send time with ns3_send (never in ns-3's past), advances ns-3 with ns3_run_until, and
// pops what was delivered. Everything random comes from ns-3's RngSeedManager, seeded by
// ns3_create, so the same scenario and run number give the same events.
#include "shim.h"

#include "ns3/aodv-module.h"
#include "ns3/applications-module.h"
#include "ns3/core-module.h"
#include "ns3/dsdv-module.h"
#include "ns3/internet-module.h"
#include "ns3/mesh-module.h"
#include "ns3/mobility-module.h"
#include "ns3/network-module.h"
#include "ns3/ns2-mobility-helper.h"
#include "ns3/olsr-module.h"
#include "ns3/propagation-module.h"
#include "ns3/tcp-westwood.h"
#include "ns3/traffic-control-module.h"
#include "ns3/wifi-module.h"

#include <cstring>
#include <deque>
#include <algorithm>
#include <exception>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

using namespace ns3;

namespace
{

constexpr uint64_t kFnvOffset = 0xcbf29ce484222325ULL;
constexpr uint64_t kFnvPrime = 0x100000001b3ULL;
// The UDP port of endpoint 0 (endpoint e = pair * 2 + side listens on kFirstPort + e), and
// the first background flow's port.
constexpr uint16_t kFirstPort = 40001;
constexpr uint16_t kBackgroundPort = 9000;
// The sink port of TCP flow 0 (flow f listens on kFirstTcpPort + f).
constexpr uint16_t kFirstTcpPort = 50001;
// RTT samples kept per TCP flow: bounds a flow's memory (a 60 s flow on a chain takes a few
// thousand; past the cap samples are counted, not kept).
constexpr size_t kMaxRttSamples = 1 << 20;
// IP protocol number of TCP.
constexpr uint8_t kTcpProtocol = 6;

// Rides on every datagram of the QUIC endpoints: its pair and direction, and the forwarders it
// crossed (a count and an FNV-1a hash of their node ids), so drops can be attributed to a
// direction and route changes seen at the receiver.
class PathTag : public Tag
{
  public:
    uint8_t direction = 0;
    uint8_t forwarders = 0;
    uint32_t pair = 0;
    uint64_t path_hash = kFnvOffset;
    uint64_t index = 0;

    static TypeId GetTypeId()
    {
        static TypeId tid = TypeId("netsim::PathTag")
                                .SetParent<Tag>()
                                .SetGroupName("Netsim")
                                .AddConstructor<PathTag>();
        return tid;
    }

    TypeId GetInstanceTypeId() const override
    {
        return GetTypeId();
    }

    uint32_t GetSerializedSize() const override
    {
        return 22;
    }

    void Serialize(TagBuffer buffer) const override
    {
        buffer.WriteU8(direction);
        buffer.WriteU8(forwarders);
        buffer.WriteU32(pair);
        buffer.WriteU64(path_hash);
        buffer.WriteU64(index);
    }

    void Deserialize(TagBuffer buffer) override
    {
        direction = buffer.ReadU8();
        forwarders = buffer.ReadU8();
        pair = buffer.ReadU32();
        path_hash = buffer.ReadU64();
        index = buffer.ReadU64();
    }

    void Print(std::ostream& os) const override
    {
        os << "pair=" << pair << " direction=" << unsigned(direction) << " forwarders=" << unsigned(forwarders);
    }
};

struct Delivered
{
    uint32_t endpoint;
    int64_t at_ns;
    uint64_t index;
    uint32_t hops;
    std::vector<uint8_t> data;
};

// One of ns-3's own TCP flows (ns3_tcp_bulk).
struct TcpFlow
{
    uint32_t pair = 0;
    Ptr<BulkSendApplication> source;
    Ns3TcpFlowStats stats{};
    // The end of the highest sequence sent so far: a data segment below it is a retransmission.
    SequenceNumber32 high_tx{0};
    bool sent_any = false;
    std::vector<int64_t> rtt_ns;
};

// The one simulation of this process (ns-3's simulator is a singleton too).
struct State
{
    NodeContainer nodes;
    Ipv4InterfaceContainer interfaces;
    // Per endpoint (pair * 2 + side): its socket, its node and that node's address, and the
    // forwarding path of the last datagram it received.
    std::vector<Ptr<Socket>> sockets;
    std::vector<uint32_t> endpoint_node;
    std::vector<Ipv4Address> addresses;
    std::vector<uint64_t> last_path;
    std::vector<bool> have_last_path;
    uint32_t routing = NS3_ROUTING_AODV;
    uint32_t propagation = NS3_PROP_RANGE;
    double range_m = 250.0;
    int64_t sample_ns = 0;
    std::deque<Delivered> delivered;
    Ns3Stats stats;
    // Per pair: the geometric samples at which its route state changed (time, up).
    std::vector<std::vector<std::pair<int64_t, uint8_t>>> route_changes;
    // Per direction, per pair: the last delivery (epoch_ns before the first) and the longest
    // gap between two deliveries so far.
    int64_t epoch_ns = 0;
    std::vector<int64_t> last_delivery[2];
    std::vector<int64_t> longest_gap[2];
    std::vector<TcpFlow> tcp_flows;
};

std::unique_ptr<State> g;

Ns3DirectionStats*
DirectionOf(Ptr<const Packet> packet)
{
    PathTag tag;
    if (!packet || !packet->PeekPacketTag(tag) || tag.direction > 1)
    {
        return nullptr; // not one of the endpoints' datagrams (routing, ARP, background)
    }
    return &g->stats.direction[tag.direction];
}

// Counts one of the endpoints' datagrams delivered at `endpoint` (the sender is the other side):
// the direction's tallies, hops and path, and the pair's delivery gap.
void
CountDelivery(uint32_t endpoint, uint32_t bytes, const PathTag* tag)
{
    uint32_t direction = 1 - endpoint % 2;
    uint32_t pair = endpoint / 2;
    Ns3DirectionStats& dir = g->stats.direction[direction];
    dir.delivered += 1;
    dir.delivered_bytes += bytes;
    int64_t now = Simulator::Now().GetNanoSeconds();
    int64_t& last = g->last_delivery[direction][pair];
    g->longest_gap[direction][pair] = std::max(g->longest_gap[direction][pair], now - last);
    last = now;
    if (tag)
    {
        uint32_t hops = uint32_t(tag->forwarders) + 1;
        dir.hops_sum += hops;
        dir.hops_samples += 1;
        if (g->have_last_path[endpoint] && g->last_path[endpoint] != tag->path_hash)
        {
            dir.route_changes += 1;
        }
        g->last_path[endpoint] = tag->path_hash;
        g->have_last_path[endpoint] = true;
    }
}

void
OnRecv(uint32_t endpoint, Ptr<Socket> socket)
{
    Ptr<Packet> packet;
    Address from;
    while ((packet = socket->RecvFrom(from)))
    {
        Delivered d;
        d.endpoint = endpoint;
        d.at_ns = Simulator::Now().GetNanoSeconds();
        d.data.resize(packet->GetSize());
        packet->CopyData(d.data.data(), d.data.size());
        d.hops = 0;
        d.index = 0;
        PathTag tag;
        bool tagged = packet->PeekPacketTag(tag);
        if (tagged)
        {
            d.index = tag.index;
            d.hops = uint32_t(tag.forwarders) + 1;
        }
        CountDelivery(endpoint, uint32_t(d.data.size()), tagged ? &tag : nullptr);
        g->delivered.push_back(std::move(d));
    }
}

void
DoSend(uint32_t endpoint, uint64_t index, std::shared_ptr<std::vector<uint8_t>> data)
{
    Ptr<Packet> packet = Create<Packet>(data->data(), data->size());
    uint32_t side = endpoint % 2;
    PathTag tag;
    tag.direction = uint8_t(side);
    tag.pair = endpoint / 2;
    tag.index = index;
    packet->AddPacketTag(tag);
    Ns3DirectionStats& dir = g->stats.direction[side];
    dir.offered += 1;
    dir.offered_bytes += data->size();
    uint32_t peer = endpoint ^ 1;
    int sent = g->sockets[endpoint]->SendTo(packet, 0, InetSocketAddress(g->addresses[peer], uint16_t(kFirstPort + peer)));
    if (sent < 0)
    {
        // Proactive protocols (OLSR, DSDV) refuse a send with no route in the table.
        dir.drop_no_route += 1;
    }
}

void
OnForward(uint32_t node, const Ipv4Header&, Ptr<const Packet> packet, uint32_t)
{
    PathTag tag;
    if (!packet->PeekPacketTag(tag))
    {
        return;
    }
    // AODV sends a packet that waited for a route back through the sender's loopback and IP
    // forwarding: the sender is not a hop.
    if (node == g->endpoint_node[tag.pair * 2 + tag.direction])
    {
        return;
    }
    tag.forwarders = tag.forwarders == 255 ? 255 : tag.forwarders + 1;
    tag.path_hash = (tag.path_hash ^ (uint64_t(node) + 1)) * kFnvPrime;
    // The trace hands the packet out as const; the tag travels on with it, as
    // FlowMonitor's probe tags do.
    ConstCast<Packet>(packet)->ReplacePacketTag(tag);
}

// A tagged datagram handed to a mesh interface's MAC (WifiMac's MacTx: once per hop, not per
// retransmission) at a node other than its sender: a mesh forwarder. 802.11s forwards at layer
// 2, so IP's UnicastForward never sees these hops.
void
OnMeshTx(uint32_t node, Ptr<const Packet> packet)
{
    OnForward(node, Ipv4Header(), packet, 0);
}

void
OnL3Drop(const Ipv4Header&, Ptr<const Packet> packet, Ipv4L3Protocol::DropReason reason, Ptr<Ipv4>, uint32_t)
{
    Ns3DirectionStats* dir = DirectionOf(packet);
    if (!dir)
    {
        return;
    }
    switch (reason)
    {
    case Ipv4L3Protocol::DROP_NO_ROUTE:
        dir->drop_no_route += 1;
        break;
    case Ipv4L3Protocol::DROP_ROUTE_ERROR:
        dir->drop_route_error += 1;
        break;
    case Ipv4L3Protocol::DROP_TTL_EXPIRED:
        dir->drop_ttl += 1;
        break;
    default:
        dir->drop_other += 1;
        break;
    }
}

void
OnMacDrop(WifiMacDropReason reason, Ptr<const WifiMpdu> mpdu)
{
    Ns3DirectionStats* dir = DirectionOf(mpdu->GetPacket());
    if (!dir)
    {
        return;
    }
    switch (reason)
    {
    case WIFI_MAC_DROP_REACHED_RETRY_LIMIT:
        dir->drop_mac_retry += 1;
        break;
    case WIFI_MAC_DROP_FAILED_ENQUEUE:
    case WIFI_MAC_DROP_EXPIRED_LIFETIME:
        dir->drop_mac_queue += 1;
        break;
    default:
        dir->drop_other += 1;
        break;
    }
}

void
OnArpDrop(Ptr<const Packet> packet)
{
    // ARP gave up resolving a neighbour (its pending queue overflowed or it timed out).
    if (Ns3DirectionStats* dir = DirectionOf(packet))
    {
        dir->drop_other += 1;
    }
}

// The endpoint whose node and address send `header`'s packet to its pair's other endpoint, or
// -1 (routing, ARP, background and the AODV loopback copies are none of the endpoints').
int64_t
EndpointOf(uint32_t node, const Ipv4Header& header)
{
    for (uint32_t e = 0; e < g->endpoint_node.size(); ++e)
    {
        if (g->endpoint_node[e] == node && g->addresses[e] == header.GetSource() &&
            g->addresses[e ^ 1] == header.GetDestination())
        {
            return e;
        }
    }
    return -1;
}

// ns-3's TCP segments leaving an endpoint's node: tagged as the QUIC datagrams are in DoSend, so
// drops, forwarders and deliveries are counted the same way. Ipv4L3Protocol::Send copies the
// packet after this trace, tags included.
void
OnTcpSendOutgoing(uint32_t node, const Ipv4Header& header, Ptr<const Packet> packet, uint32_t)
{
    PathTag tag;
    if (header.GetProtocol() != kTcpProtocol || packet->PeekPacketTag(tag))
    {
        return;
    }
    int64_t endpoint = EndpointOf(node, header);
    if (endpoint < 0)
    {
        return;
    }
    tag.direction = uint8_t(endpoint % 2);
    tag.pair = uint32_t(endpoint / 2);
    ConstCast<Packet>(packet)->AddPacketTag(tag);
    Ns3DirectionStats& dir = g->stats.direction[tag.direction];
    dir.offered += 1;
    dir.offered_bytes += packet->GetSize();
}

void
OnTcpLocalDeliver(uint32_t node, const Ipv4Header& header, Ptr<const Packet> packet, uint32_t)
{
    PathTag tag;
    if (header.GetProtocol() != kTcpProtocol || !packet->PeekPacketTag(tag) || tag.direction > 1)
    {
        return;
    }
    uint32_t receiver = tag.pair * 2 + (1 - tag.direction);
    if (receiver >= g->endpoint_node.size() || g->endpoint_node[receiver] != node)
    {
        return;
    }
    CountDelivery(receiver, packet->GetSize(), &tag);
}

void
OnTcpSinkRx(uint32_t flow, Ptr<const Packet> packet, const Address&)
{
    Ns3TcpFlowStats& stats = g->tcp_flows[flow].stats;
    int64_t now = Simulator::Now().GetNanoSeconds();
    stats.rx_bytes += packet->GetSize();
    if (stats.first_rx_ns < 0)
    {
        stats.first_rx_ns = now;
    }
    stats.last_rx_ns = now;
}

void
OnTcpTx(uint32_t flow, Ptr<const Packet> packet, const TcpHeader& header, Ptr<const TcpSocketBase>)
{
    if (packet->GetSize() == 0)
    {
        return; // a pure ACK, SYN or FIN
    }
    TcpFlow& f = g->tcp_flows[flow];
    f.stats.segments_sent += 1;
    f.stats.bytes_sent += packet->GetSize();
    SequenceNumber32 end = header.GetSequenceNumber() + packet->GetSize();
    if (f.sent_any && header.GetSequenceNumber() < f.high_tx)
    {
        f.stats.retransmissions += 1;
    }
    if (!f.sent_any || end > f.high_tx)
    {
        f.high_tx = end;
    }
    f.sent_any = true;
}

void
OnTcpCongState(uint32_t flow, TcpSocketState::TcpCongState_t, TcpSocketState::TcpCongState_t now)
{
    Ns3TcpFlowStats& stats = g->tcp_flows[flow].stats;
    if (now == TcpSocketState::CA_LOSS)
    {
        stats.timeouts += 1;
    }
    else if (now == TcpSocketState::CA_RECOVERY)
    {
        stats.fast_recoveries += 1;
    }
}

void
OnTcpRtt(uint32_t flow, Time, Time rtt)
{
    TcpFlow& f = g->tcp_flows[flow];
    f.stats.rtt_samples += 1;
    if (f.rtt_ns.size() < kMaxRttSamples)
    {
        f.rtt_ns.push_back(rtt.GetNanoSeconds());
    }
}

// Runs just after flow `flow`'s sender started (BulkSend creates its socket then): connects the
// socket's traces.
void
HookTcpSender(uint32_t flow)
{
    Ptr<TcpSocketBase> socket = DynamicCast<TcpSocketBase>(g->tcp_flows[flow].source->GetSocket());
    if (!socket)
    {
        return;
    }
    socket->TraceConnectWithoutContext("Tx", MakeBoundCallback(&OnTcpTx, flow));
    socket->TraceConnectWithoutContext("CongState", MakeBoundCallback(&OnTcpCongState, flow));
    socket->TraceConnectWithoutContext("RTT", MakeBoundCallback(&OnTcpRtt, flow));
}

void
InstallTcp(const Ns3TcpBulk& bulk)
{
    static const char* const variants[] = {"ns3::TcpNewReno", "ns3::TcpCubic", "ns3::TcpVegas", "ns3::TcpWestwood", "ns3::TcpWestwood"};
    Config::SetDefault("ns3::TcpSocket::SegmentSize", UintegerValue(bulk.segment_bytes));
    Config::SetDefault("ns3::TcpWestwood::ProtocolType",
                       EnumValue(bulk.variant == NS3_TCP_WESTWOODPLUS ? TcpWestwood::WESTWOODPLUS : TcpWestwood::WESTWOOD));
    TypeId socketType = TypeId::LookupByName(variants[bulk.variant]);
    uint32_t pairs = uint32_t(g->endpoint_node.size() / 2);
    for (uint32_t e = 0; e < g->endpoint_node.size(); ++e)
    {
        Ptr<Node> node = g->nodes.Get(g->endpoint_node[e]);
        Ptr<TcpL4Protocol> tcp = node->GetObject<TcpL4Protocol>();
        tcp->SetAttribute("SocketType", TypeIdValue(socketType));
        // RFC 6582's NewReno recovery, as RFC 9002's QUIC recovery (ns-3's default is PRR).
        tcp->SetAttribute("RecoveryType", TypeIdValue(TcpClassicRecovery::GetTypeId()));
        Ptr<Ipv4L3Protocol> ip = node->GetObject<Ipv4L3Protocol>();
        ip->TraceConnectWithoutContext("SendOutgoing", MakeBoundCallback(&OnTcpSendOutgoing, g->endpoint_node[e]));
        ip->TraceConnectWithoutContext("LocalDeliver", MakeBoundCallback(&OnTcpLocalDeliver, g->endpoint_node[e]));
    }
    for (uint32_t pair = 0; pair < pairs; ++pair)
    {
        for (uint32_t k = 0; k < bulk.flows_per_pair; ++k)
        {
            uint32_t flow = uint32_t(g->tcp_flows.size());
            uint16_t port = uint16_t(kFirstTcpPort + flow);
            Ptr<Node> source = g->nodes.Get(g->endpoint_node[pair * 2]);
            Ptr<Node> sink = g->nodes.Get(g->endpoint_node[pair * 2 + 1]);
            BulkSendHelper sender("ns3::TcpSocketFactory", InetSocketAddress(g->addresses[pair * 2 + 1], port));
            sender.SetAttribute("MaxBytes", UintegerValue(bulk.max_bytes));
            sender.SetAttribute("SendSize", UintegerValue(bulk.segment_bytes));
            ApplicationContainer sent = sender.Install(source);
            sent.Start(NanoSeconds(bulk.start_ns[flow]));
            sent.Stop(NanoSeconds(bulk.stop_ns));
            PacketSinkHelper receiver("ns3::TcpSocketFactory", InetSocketAddress(Ipv4Address::GetAny(), port));
            ApplicationContainer received = receiver.Install(sink);
            received.Start(Seconds(0.0));
            TcpFlow f;
            f.pair = pair;
            f.source = DynamicCast<BulkSendApplication>(sent.Get(0));
            f.stats.pair = pair;
            f.stats.first_rx_ns = -1;
            f.stats.last_rx_ns = -1;
            g->tcp_flows.push_back(std::move(f));
            received.Get(0)->TraceConnectWithoutContext("Rx", MakeBoundCallback(&OnTcpSinkRx, flow));
            // After the application's own start event at the same time, which creates the socket.
            Simulator::Schedule(NanoSeconds(bulk.start_ns[flow] + 1) - Simulator::Now(), &HookTcpSender, flow);
        }
    }
}

void
OnDataFailed(Mac48Address)
{
    g->stats.mac_tx_data_failed += 1;
}

void
OnFinalDataFailed(Mac48Address)
{
    g->stats.mac_tx_final_data_failed += 1;
}

void
OnBackgroundTx(Ptr<const Packet>)
{
    g->stats.background_sent += 1;
}

void
OnBackgroundRx(Ptr<const Packet>, const Address&)
{
    g->stats.background_received += 1;
}

// Samples whether the unit-disk graph has a path from `source` to `sink` right now; returns it.
bool
SamplePair(const std::vector<Vector>& position, uint32_t source, uint32_t sink)
{
    uint32_t n = uint32_t(position.size());
    std::vector<int32_t> depth(n, -1);
    std::deque<uint32_t> frontier{source};
    depth[source] = 0;
    double reach = g->range_m * g->range_m;
    while (!frontier.empty() && depth[sink] < 0)
    {
        uint32_t at = frontier.front();
        frontier.pop_front();
        for (uint32_t next = 0; next < n; ++next)
        {
            if (depth[next] >= 0)
            {
                continue;
            }
            double dx = position[at].x - position[next].x;
            double dy = position[at].y - position[next].y;
            if (dx * dx + dy * dy <= reach)
            {
                depth[next] = depth[at] + 1;
                frontier.push_back(next);
            }
        }
    }
    g->stats.route_samples += 1;
    if (depth[sink] >= 0)
    {
        g->stats.route_samples_up += 1;
        g->stats.route_hops_sum += uint64_t(depth[sink]);
    }
    return depth[sink] >= 0;
}

// Samples every pair's geometric route availability, then again in sample_ns.
void
SampleRoute()
{
    uint32_t n = g->nodes.GetN();
    std::vector<Vector> position(n);
    for (uint32_t i = 0; i < n; ++i)
    {
        position[i] = g->nodes.Get(i)->GetObject<MobilityModel>()->GetPosition();
    }
    int64_t now = Simulator::Now().GetNanoSeconds();
    for (size_t e = 0; e + 1 < g->endpoint_node.size(); e += 2)
    {
        uint8_t up = SamplePair(position, g->endpoint_node[e], g->endpoint_node[e + 1]) ? 1 : 0;
        auto& changes = g->route_changes[e / 2];
        if (changes.empty() || changes.back().second != up)
        {
            changes.emplace_back(now, up);
        }
    }
    Simulator::Schedule(NanoSeconds(g->sample_ns), &SampleRoute);
}

std::string
ConstantOrUniform(double low, double high)
{
    std::ostringstream s;
    if (low == high)
    {
        s << "ns3::ConstantRandomVariable[Constant=" << low << "]";
    }
    else
    {
        s << "ns3::UniformRandomVariable[Min=" << low << "|Max=" << high << "]";
    }
    return s.str();
}

// Every random variable gets an explicit stream (ns-3's AssignStreams), numbered in the order
// the network is built. ns-3 otherwise numbers streams from a process-wide counter that no
// Simulator::Destroy resets, so a process's second simulation would draw other numbers than
// its first: explicit streams make a run depend on its scenario and run number alone.
int64_t
InstallMobility(const Ns3Scenario& sc, int64_t stream)
{
    MobilityHelper mobility;
    switch (sc.topology)
    {
    case NS3_TOPO_RANDOM_WAYPOINT: {
        ObjectFactory factory;
        factory.SetTypeId("ns3::RandomRectanglePositionAllocator");
        factory.Set("X", StringValue(ConstantOrUniform(0.0, sc.area_x_m)));
        factory.Set("Y", StringValue(ConstantOrUniform(0.0, sc.area_y_m)));
        Ptr<PositionAllocator> allocator = factory.Create()->GetObject<PositionAllocator>();
        // Before Install, which draws the initial positions from it.
        stream += allocator->AssignStreams(stream);
        mobility.SetMobilityModel("ns3::RandomWaypointMobilityModel",
                                  "Speed",
                                  StringValue(ConstantOrUniform(sc.speed_min_mps, sc.speed_max_mps)),
                                  "Pause",
                                  StringValue(ConstantOrUniform(sc.pause_s, sc.pause_s)),
                                  "PositionAllocator",
                                  PointerValue(allocator));
        mobility.SetPositionAllocator(allocator);
        mobility.Install(g->nodes);
        stream += mobility.AssignStreams(g->nodes, stream);
        break;
    }
    case NS3_TOPO_CHAIN:
    case NS3_TOPO_GRID: {
        uint32_t columns = sc.topology == NS3_TOPO_CHAIN ? sc.nodes : sc.grid_columns;
        mobility.SetPositionAllocator("ns3::GridPositionAllocator",
                                      "MinX", DoubleValue(0.0),
                                      "MinY", DoubleValue(0.0),
                                      "DeltaX", DoubleValue(sc.spacing_m),
                                      "DeltaY", DoubleValue(sc.spacing_m),
                                      "GridWidth", UintegerValue(columns),
                                      "LayoutType", StringValue("RowFirst"));
        mobility.SetMobilityModel("ns3::ConstantPositionMobilityModel");
        mobility.Install(g->nodes);
        break;
    }
    case NS3_TOPO_NS2_TRACE: {
        // Installs on every node in ns-3's NodeList, that is on these nodes (created first);
        // the Rust side checked that the trace places every one of them.
        Ns2MobilityHelper trace(sc.trace_path);
        trace.Install();
        break;
    }
    }
    return stream;
}

// Every node's rate manager. The retry limits and the RTS/CTS threshold are attributes of every
// WifiRemoteStationManager; the rates are ConstantRateWifiManager's alone (Minstrel, Minstrel-HT
// and Ideal choose among all of the standard's rates, control answers at its basic rates).
template <typename Helper>
void
SetRateControl(Helper& wifi, const Ns3Scenario& sc)
{
    static const char* const adaptive[] = {nullptr, "ns3::MinstrelWifiManager", "ns3::IdealWifiManager", "ns3::MinstrelHtWifiManager"};
    UintegerValue rtsCts(sc.rts_cts ? 0 : 65535);
    switch (sc.rate_control)
    {
    case NS3_RATE_MINSTREL:
    case NS3_RATE_IDEAL:
    case NS3_RATE_MINSTREL_HT:
        wifi.SetRemoteStationManager(adaptive[sc.rate_control],
                                     "MaxSsrc", UintegerValue(sc.short_retry_limit),
                                     "MaxSlrc", UintegerValue(sc.long_retry_limit),
                                     "RtsCtsThreshold", rtsCts);
        break;
    default:
        wifi.SetRemoteStationManager("ns3::ConstantRateWifiManager",
                                     "DataMode", StringValue(sc.data_mode),
                                     "ControlMode", StringValue(sc.control_mode),
                                     "MaxSsrc", UintegerValue(sc.short_retry_limit),
                                     "MaxSlrc", UintegerValue(sc.long_retry_limit),
                                     "RtsCtsThreshold", rtsCts);
        break;
    }
}

// The channel's propagation: delay at the speed of light, and the loss model(s), chained in the
// order added (each model's output power is the next one's input).
YansWifiChannelHelper
ChannelFor(const Ns3Scenario& sc)
{
    YansWifiChannelHelper channel;
    switch (sc.propagation)
    {
    case NS3_PROP_RANGE:
        // Not YansWifiChannelHelper::Default(): its log-distance model on top of the range
        // model would leave 250 m neighbours out of reach (NS3.md, pitfalls).
        channel.SetPropagationDelay("ns3::ConstantSpeedPropagationDelayModel");
        channel.AddPropagationLoss("ns3::RangePropagationLossModel", "MaxRange", DoubleValue(sc.range_m));
        break;
    case NS3_PROP_NAKAGAMI:
        channel.SetPropagationDelay("ns3::ConstantSpeedPropagationDelayModel");
        channel.AddPropagationLoss("ns3::LogDistancePropagationLossModel",
                                   "Exponent", DoubleValue(sc.path_loss_exponent),
                                   "ReferenceDistance", DoubleValue(sc.reference_distance_m),
                                   "ReferenceLoss", DoubleValue(sc.reference_loss_db));
        channel.AddPropagationLoss("ns3::NakagamiPropagationLossModel",
                                   "Distance1", DoubleValue(sc.nakagami_distance1_m),
                                   "Distance2", DoubleValue(sc.nakagami_distance2_m),
                                   "m0", DoubleValue(sc.nakagami_m0),
                                   "m1", DoubleValue(sc.nakagami_m1),
                                   "m2", DoubleValue(sc.nakagami_m2));
        break;
    default:
        channel = YansWifiChannelHelper::Default();
        break;
    }
    return channel;
}

NetDeviceContainer
InstallWifi(const Ns3Scenario& sc, int64_t& stream)
{
    static const WifiStandard standards[] = {WIFI_STANDARD_80211b, WIFI_STANDARD_80211a, WIFI_STANDARD_80211g, WIFI_STANDARD_80211n, WIFI_STANDARD_80211n};
    WifiHelper wifi;
    wifi.SetStandard(standards[sc.standard]);
    SetRateControl(wifi, sc);
    YansWifiPhyHelper phy;
    // 802.11n: a 20 MHz channel in the named band, the band's default channel number. (HT's
    // other defaults are what the config promises: one antenna and spatial stream, the long
    // guard interval, HtConfiguration::ShortGuardIntervalSupported being false.) No A-MPDU
    // aggregation, so no block-ACK agreements: with them ns-3 3.37 aborts on lossy multi-hop
    // runs (an A-MPDU reaching a node without a recipient agreement in
    // HtFrameExchangeManager::EndReceiveAmpdu; "Invalid WifiPhy state" in SwitchToTx). See the
    // README, "802.11n".
    if (sc.standard == NS3_STD_80211N_2_4GHZ || sc.standard == NS3_STD_80211N_5GHZ)
    {
        Config::SetDefault("ns3::WifiMac::BE_MaxAmpduSize", UintegerValue(0));
    }
    if (sc.standard == NS3_STD_80211N_2_4GHZ)
    {
        phy.Set("ChannelSettings", StringValue("{0, 20, BAND_2_4GHZ, 0}"));
    }
    else if (sc.standard == NS3_STD_80211N_5GHZ)
    {
        phy.Set("ChannelSettings", StringValue("{0, 20, BAND_5GHZ, 0}"));
    }
    YansWifiChannelHelper channelHelper = ChannelFor(sc);
    Ptr<YansWifiChannel> channel = channelHelper.Create();
    phy.SetChannel(channel);
    WifiMacHelper mac;
    mac.SetType("ns3::AdhocWifiMac");
    NetDeviceContainer devices = wifi.Install(phy, mac, g->nodes);
    // The PHYs, the rate managers (Minstrel's sampling) and the MACs' backoff; then the
    // channel's loss models (Nakagami's fading draws), which WifiHelper does not reach. The
    // range and log-distance models draw nothing and take no stream.
    stream += wifi.AssignStreams(devices, stream);
    stream += channelHelper.AssignStreams(channel, stream);
    return devices;
}

// An IEEE 802.11s mesh (ns-3's mesh module): every node a mesh point with one 802.11a interface
// on channel 100 (MeshHelper's ZERO_CHANNEL; the Rust side refuses other standards), the
// Dot11sStack (peering management and HWMP with ns-3's defaults), the scenario's rate manager.
// Returns the mesh point devices, which IP runs over; `radios` gets their interfaces.
NetDeviceContainer
InstallMesh(const Ns3Scenario& sc, int64_t& stream, std::vector<Ptr<WifiNetDevice>>& radios)
{
    MeshHelper mesh;
    mesh.SetStackInstaller("ns3::Dot11sStack");
    mesh.SetSpreadInterfaceChannels(MeshHelper::ZERO_CHANNEL);
    mesh.SetNumberOfInterfaces(1);
    mesh.SetMacType();
    mesh.SetStandard(WIFI_STANDARD_80211a);
    SetRateControl(mesh, sc);
    YansWifiPhyHelper phy;
    YansWifiChannelHelper channelHelper = ChannelFor(sc);
    Ptr<YansWifiChannel> channel = channelHelper.Create();
    phy.SetChannel(channel);
    NetDeviceContainer devices = mesh.Install(phy, g->nodes);
    // The mesh points (HWMP, peering), the PHYs, Minstrel and the MACs; then the channel's loss
    // models, as for the ad hoc network.
    stream += mesh.AssignStreams(devices, stream);
    stream += channelHelper.AssignStreams(channel, stream);
    for (uint32_t i = 0; i < devices.GetN(); ++i)
    {
        Ptr<MeshPointDevice> point = DynamicCast<MeshPointDevice>(devices.Get(i));
        for (const Ptr<NetDevice>& iface : point->GetInterfaces())
        {
            radios.push_back(DynamicCast<WifiNetDevice>(iface));
        }
    }
    return devices;
}

// The Wi-Fi devices of an ad hoc network's nodes, in node order.
std::vector<Ptr<WifiNetDevice>>
RadiosOf(const NetDeviceContainer& devices)
{
    std::vector<Ptr<WifiNetDevice>> radios;
    for (uint32_t i = 0; i < devices.GetN(); ++i)
    {
        radios.push_back(DynamicCast<WifiNetDevice>(devices.Get(i)));
    }
    return radios;
}

// Bit errors on every frame a node receives (data, ACK, RTS/CTS, broadcast): the frame is lost
// and the MAC retransmits, as on a noisy 802.11 link.
int64_t
AddBitErrors(const Ns3Scenario& sc, const std::vector<Ptr<WifiNetDevice>>& radios, int64_t stream)
{
    if (sc.bit_error_rate <= 0.0)
    {
        return stream;
    }
    for (const Ptr<WifiNetDevice>& radio : radios)
    {
        Ptr<RateErrorModel> errors = CreateObject<RateErrorModel>();
        errors->SetUnit(RateErrorModel::ERROR_UNIT_BIT);
        errors->SetRate(sc.bit_error_rate);
        stream += errors->AssignStreams(stream);
        radio->GetPhy()->SetPostReceptionErrorModel(errors);
    }
    return stream;
}

int64_t
InstallRouting(const Ns3Scenario& sc, int64_t stream)
{
    InternetStackHelper internet;
    // IPv4 only, as the papers' networks: no IPv6 neighbour discovery traffic.
    internet.SetIpv6StackInstall(false);
    AodvHelper aodv;
    OlsrHelper olsr;
    DsdvHelper dsdv;
    // Over a mesh, HWMP finds the layer-2 path: IP sees one subnet, every node one hop away.
    Ipv4StaticRoutingHelper staticRouting;
    switch (sc.routing)
    {
    case NS3_ROUTING_HWMP:
        internet.SetRoutingHelper(staticRouting);
        break;
    case NS3_ROUTING_AODV:
        internet.SetRoutingHelper(aodv);
        break;
    case NS3_ROUTING_OLSR:
        internet.SetRoutingHelper(olsr);
        break;
    case NS3_ROUTING_DSDV:
        internet.SetRoutingHelper(dsdv);
        break;
    }
    internet.Install(g->nodes);
    stream += internet.AssignStreams(g->nodes, stream);
    switch (sc.routing)
    {
    case NS3_ROUTING_AODV:
        stream += aodv.AssignStreams(g->nodes, stream);
        break;
    case NS3_ROUTING_OLSR:
        stream += olsr.AssignStreams(g->nodes, stream);
        break;
    case NS3_ROUTING_DSDV:
        // DsdvHelper has no AssignStreams in 3.37; its protocol objects do.
        for (uint32_t i = 0; i < g->nodes.GetN(); ++i)
        {
            Ptr<Ipv4> ip = g->nodes.Get(i)->GetObject<Ipv4>();
            Ptr<Ipv4ListRouting> list = DynamicCast<Ipv4ListRouting>(ip->GetRoutingProtocol());
            for (uint32_t k = 0; list && k < list->GetNRoutingProtocols(); ++k)
            {
                int16_t priority;
                Ptr<dsdv::RoutingProtocol> dsdvProtocol =
                    DynamicCast<dsdv::RoutingProtocol>(list->GetRoutingProtocol(k, priority));
                if (dsdvProtocol)
                {
                    stream += dsdvProtocol->AssignStreams(stream);
                }
            }
        }
        break;
    }
    return stream;
}

void
ConnectTraces(const std::vector<Ptr<WifiNetDevice>>& radios)
{
    for (uint32_t i = 0; i < g->nodes.GetN(); ++i)
    {
        Ptr<Node> node = g->nodes.Get(i);
        Ptr<Ipv4L3Protocol> ip = node->GetObject<Ipv4L3Protocol>();
        ip->TraceConnectWithoutContext("Drop", MakeCallback(&OnL3Drop));
        ip->TraceConnectWithoutContext("UnicastForward", MakeBoundCallback(&OnForward, i));
        if (Ptr<ArpL3Protocol> arp = node->GetObject<ArpL3Protocol>())
        {
            arp->TraceConnectWithoutContext("Drop", MakeCallback(&OnArpDrop));
        }
    }
    for (const Ptr<WifiNetDevice>& device : radios)
    {
        if (g->routing == NS3_ROUTING_HWMP)
        {
            uint32_t node = 0;
            while (g->nodes.Get(node) != device->GetNode())
            {
                ++node;
            }
            device->GetMac()->TraceConnectWithoutContext("MacTx", MakeBoundCallback(&OnMeshTx, node));
        }
        device->GetMac()->TraceConnectWithoutContext("DroppedMpdu", MakeCallback(&OnMacDrop));
        Ptr<WifiRemoteStationManager> manager = device->GetRemoteStationManager();
        manager->TraceConnectWithoutContext("MacTxDataFailed", MakeCallback(&OnDataFailed));
        manager->TraceConnectWithoutContext("MacTxFinalDataFailed", MakeCallback(&OnFinalDataFailed));
    }
}

void
InstallBackground(const Ns3Scenario& sc, int64_t stream)
{
    for (uint32_t i = 0; i < sc.background_count; ++i)
    {
        const Ns3Cbr& flow = sc.background[i];
        uint16_t port = uint16_t(kBackgroundPort + i);
        OnOffHelper onoff("ns3::UdpSocketFactory", InetSocketAddress(g->interfaces.GetAddress(flow.to), port));
        onoff.SetConstantRate(DataRate(uint64_t(flow.rate_bps)), flow.packet_bytes);
        ApplicationContainer source = onoff.Install(g->nodes.Get(flow.from));
        stream += onoff.AssignStreams(NodeContainer(g->nodes.Get(flow.from)), stream);
        source.Start(NanoSeconds(flow.start_ns));
        source.Stop(NanoSeconds(flow.stop_ns));
        source.Get(0)->TraceConnectWithoutContext("Tx", MakeCallback(&OnBackgroundTx));
        PacketSinkHelper sink("ns3::UdpSocketFactory", InetSocketAddress(Ipv4Address::GetAny(), port));
        ApplicationContainer sinkApp = sink.Install(g->nodes.Get(flow.to));
        sinkApp.Start(Seconds(0.0));
        sinkApp.Get(0)->TraceConnectWithoutContext("Rx", MakeCallback(&OnBackgroundRx));
    }
}

void
Build(const Ns3Scenario& sc)
{
    // ns-3's process-wide registries, so that every simulation starts from the same state.
    Simulator::Destroy();
    Config::Reset();
    Ipv4AddressGenerator::Reset();
    Mac48Address::ResetAllocationIndex();
    RngSeedManager::SetSeed(1);
    RngSeedManager::SetRun(sc.run);
    // The interface queue in front of the MAC (ns-2's IFQ); traffic control is removed below.
    Config::SetDefault("ns3::WifiMacQueue::MaxSize", QueueSizeValue(QueueSize(QueueSizeUnit::PACKETS, sc.queue_packets)));
    // ARP: how long a neighbour that did not answer stays unreachable (packets to it are
    // dropped meanwhile), and how many packets wait for an answer.
    Config::SetDefault("ns3::ArpCache::DeadTimeout", TimeValue(NanoSeconds(sc.arp_dead_timeout_ns)));
    Config::SetDefault("ns3::ArpCache::PendingQueueSize", UintegerValue(sc.arp_pending_packets));
    // AODV's gratuitous RREP to the destination when an intermediate node answers a RREQ; with
    // ns-3 3.37's RecvRequest it can route the destination through a node without a valid
    // route back (NS3.md, pitfalls: the AODV black hole).
    Config::SetDefault("ns3::aodv::RoutingProtocol::GratuitousReply", BooleanValue(sc.aodv_gratuitous_reply != 0));
    // 802.11s: failed frames in a row before a peer link closes. ns-3 3.37 closes it inside the
    // MAC's drop trace, which also fires for frames that expire while a frame exchange starts;
    // the Peer Link Close is then sent inside that exchange, which sends too, and the PHY
    // aborts (README, "The 802.11s abort"). A large value leaves the closing to beacon loss.
    Config::SetDefault("ns3::dot11s::PeerLink::MaxPacketFailure", UintegerValue(sc.mesh_max_packet_failure));

    g = std::make_unique<State>();
    std::memset(&g->stats, 0, sizeof(g->stats));
    g->routing = sc.routing;
    g->propagation = sc.propagation;
    g->range_m = sc.range_m;
    g->sample_ns = sc.sample_ns;
    g->epoch_ns = sc.epoch_ns;

    g->nodes.Create(sc.nodes);
    int64_t stream = InstallMobility(sc, 0);
    std::vector<Ptr<WifiNetDevice>> radios;
    NetDeviceContainer devices;
    if (sc.routing == NS3_ROUTING_HWMP)
    {
        devices = InstallMesh(sc, stream, radios);
    }
    else
    {
        devices = InstallWifi(sc, stream);
        radios = RadiosOf(devices);
    }
    stream = AddBitErrors(sc, radios, stream);
    stream = InstallRouting(sc, stream);
    Ipv4AddressHelper addressing;
    addressing.SetBase("10.1.0.0", "255.255.0.0");
    g->interfaces = addressing.Assign(devices);
    // Ipv4AddressHelper::Assign puts a pfifo_fast queue disc in front of each device; remove it
    // so the MAC queue alone is the interface queue, as in the papers' ns-2 set-ups.
    for (uint32_t i = 0; i < devices.GetN(); ++i)
    {
        Ptr<TrafficControlLayer> tc = devices.Get(i)->GetNode()->GetObject<TrafficControlLayer>();
        if (tc && tc->GetRootQueueDiscOnDevice(devices.Get(i)))
        {
            tc->DeleteRootQueueDiscOnDevice(devices.Get(i));
        }
    }
    ConnectTraces(radios);
    InstallBackground(sc, stream);

    TypeId udp = TypeId::LookupByName("ns3::UdpSocketFactory");
    for (uint32_t pair = 0; pair < sc.pair_count; ++pair)
    {
        g->endpoint_node.push_back(sc.pairs[pair].source);
        g->endpoint_node.push_back(sc.pairs[pair].sink);
    }
    for (uint32_t endpoint = 0; endpoint < g->endpoint_node.size(); ++endpoint)
    {
        uint32_t node = g->endpoint_node[endpoint];
        Ptr<Socket> socket = Socket::CreateSocket(g->nodes.Get(node), udp);
        socket->Bind(InetSocketAddress(Ipv4Address::GetAny(), uint16_t(kFirstPort + endpoint)));
        socket->SetRecvCallback(MakeBoundCallback(&OnRecv, endpoint));
        g->sockets.push_back(socket);
        g->addresses.push_back(g->interfaces.GetAddress(node));
    }
    g->last_path.assign(g->endpoint_node.size(), 0);
    g->route_changes.resize(sc.pair_count);
    for (int direction = 0; direction < 2; ++direction)
    {
        g->last_delivery[direction].assign(sc.pair_count, sc.epoch_ns);
        g->longest_gap[direction].assign(sc.pair_count, 0);
    }
    g->have_last_path.assign(g->endpoint_node.size(), false);
    if (sc.propagation == NS3_PROP_RANGE && sc.sample_ns > 0)
    {
        Simulator::Schedule(NanoSeconds(0), &SampleRoute);
    }
}

// Copies an exception's message into the caller's NUL-terminated buffer.
void
CopyError(const std::exception& e, char* err, size_t err_len)
{
    if (err && err_len > 0)
    {
        std::strncpy(err, e.what(), err_len - 1);
        err[err_len - 1] = '\0';
    }
}

} // namespace

extern "C"
{

int
ns3_create(const Ns3Scenario* scenario, char* err, size_t err_len)
{
    try
    {
        Build(*scenario);
        return 0;
    }
    catch (const std::exception& e)
    {
        CopyError(e, err, err_len);
        return -1;
    }
}

void
ns3_send(uint32_t endpoint, int64_t at_ns, uint64_t index, const uint8_t* data, uint32_t len)
{
    auto bytes = std::make_shared<std::vector<uint8_t>>(data, data + len);
    Time delay = NanoSeconds(at_ns) - Simulator::Now();
    if (delay.IsNegative())
    {
        delay = Seconds(0); // the Rust side never asks for the past; clamp rather than abort
    }
    if (!g || endpoint >= g->sockets.size())
    {
        return; // the Rust side only sends from its pairs' endpoints
    }
    Simulator::Schedule(delay, &DoSend, endpoint, index, bytes);
}

void
ns3_native_cbr(uint32_t endpoint, int64_t start_ns, int64_t interval_ns, uint32_t count, uint32_t len)
{
    if (!g || endpoint >= g->sockets.size())
    {
        return;
    }
    for (uint32_t k = 0; k < count; ++k)
    {
        auto bytes = std::make_shared<std::vector<uint8_t>>(len, uint8_t(k));
        Simulator::Schedule(NanoSeconds(start_ns + int64_t(k) * interval_ns) - Simulator::Now(), &DoSend, endpoint, uint64_t(k), bytes);
    }
}

void
ns3_run_until(int64_t at_ns)
{
    Time until = NanoSeconds(at_ns);
    if (until > Simulator::Now())
    {
        Simulator::Stop(until - Simulator::Now());
        Simulator::Run();
    }
}

int
ns3_pop(Ns3Delivery* out, uint8_t* buf, uint32_t cap)
{
    if (!g || g->delivered.empty())
    {
        return 0;
    }
    Delivered& d = g->delivered.front();
    out->endpoint = d.endpoint;
    out->len = uint32_t(d.data.size());
    out->at_ns = d.at_ns;
    out->index = d.index;
    out->hops = d.hops;
    out->reserved = 0;
    std::memcpy(buf, d.data.data(), std::min<size_t>(cap, d.data.size()));
    g->delivered.pop_front();
    return 1;
}

void
ns3_stats(Ns3Stats* out)
{
    if (!g)
    {
        std::memset(out, 0, sizeof(*out));
        return;
    }
    g->stats.events = Simulator::GetEventCount();
    int64_t now = Simulator::Now().GetNanoSeconds();
    g->stats.now_ns = now;
    for (int direction = 0; direction < 2; ++direction)
    {
        int64_t longest = 0;
        for (size_t pair = 0; pair < g->last_delivery[direction].size(); ++pair)
        {
            longest = std::max({longest, g->longest_gap[direction][pair], now - g->last_delivery[direction][pair]});
        }
        g->stats.direction[direction].max_gap_ns = longest;
    }
    *out = g->stats;
}

uint32_t
ns3_route_changes(uint32_t pair, int64_t* at_ns, uint8_t* up, uint32_t cap)
{
    if (!g || pair >= g->route_changes.size())
    {
        return 0;
    }
    const auto& changes = g->route_changes[pair];
    for (size_t i = 0; i < changes.size() && i < cap; ++i)
    {
        at_ns[i] = changes[i].first;
        up[i] = changes[i].second;
    }
    return uint32_t(changes.size());
}

int
ns3_tcp_bulk(const Ns3TcpBulk* bulk, char* err, size_t err_len)
{
    try
    {
        if (!g || !bulk || bulk->variant > NS3_TCP_WESTWOODPLUS || bulk->flows_per_pair == 0 || !bulk->start_ns)
        {
            throw std::invalid_argument("ns3_tcp_bulk: no simulation, or an invalid flow description");
        }
        if (uint64_t(bulk->start_count) != uint64_t(g->endpoint_node.size() / 2) * bulk->flows_per_pair)
        {
            throw std::invalid_argument("ns3_tcp_bulk: one start time per flow of every pair is needed");
        }
        if (!g->tcp_flows.empty())
        {
            throw std::invalid_argument("ns3_tcp_bulk: the TCP flows are already installed");
        }
        InstallTcp(*bulk);
        return 0;
    }
    catch (const std::exception& e)
    {
        CopyError(e, err, err_len);
        return -1;
    }
}

uint32_t
ns3_tcp_flow_count(void)
{
    return g ? uint32_t(g->tcp_flows.size()) : 0;
}

int
ns3_tcp_flow(uint32_t flow, Ns3TcpFlowStats* out)
{
    if (!g || flow >= g->tcp_flows.size())
    {
        return 0;
    }
    *out = g->tcp_flows[flow].stats;
    return 1;
}

uint32_t
ns3_tcp_rtt(uint32_t flow, int64_t* out, uint32_t cap)
{
    if (!g || flow >= g->tcp_flows.size())
    {
        return 0;
    }
    const auto& samples = g->tcp_flows[flow].rtt_ns;
    for (size_t i = 0; i < samples.size() && i < cap; ++i)
    {
        out[i] = samples[i];
    }
    return uint32_t(samples.size());
}

int64_t
ns3_now(void)
{
    return Simulator::Now().GetNanoSeconds();
}

void
ns3_destroy(void)
{
    if (g)
    {
        for (auto& socket : g->sockets)
        {
            if (socket)
            {
                socket->Close();
            }
        }
    }
    g.reset();
    Simulator::Destroy();
}

} // extern "C"
