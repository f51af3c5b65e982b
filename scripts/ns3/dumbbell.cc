// The simulator's benchmark dumbbell in ns-3 (Debian's libns3-dev, ns-3.37), for the
// speed comparison in docs/BENCHMARKS.md ("Scaling"): N TCP NewReno bulk flows, each
// from its own left leaf to its own right leaf, over one bottleneck of N Mbit/s
// (1 Mbit/s per flow), one-way delay 20 ms in each direction, drop-tail queue of
// 100 ms at capacity (in 1500-byte packets, no qdisc), access links 100x faster with
// no delay. Build and run with scripts/ns3/run.sh. Prints the wall time of
// Simulator::Run, the events it executed and the bytes the sinks received.
#include "ns3/applications-module.h"
#include "ns3/core-module.h"
#include "ns3/internet-module.h"
#include "ns3/network-module.h"
#include "ns3/point-to-point-layout-module.h"
#include "ns3/point-to-point-module.h"
#include "ns3/traffic-control-module.h"

#include <chrono>
#include <cstdio>

using namespace ns3;

int main(int argc, char* argv[]) {
    uint32_t flows = 100;
    double seconds = 10.0;
    CommandLine cmd;
    cmd.AddValue("flows", "number of TCP flows (1 Mbit/s of bottleneck each)", flows);
    cmd.AddValue("seconds", "simulated seconds", seconds);
    cmd.Parse(argc, argv);

    auto wall0 = std::chrono::steady_clock::now();
    Config::SetDefault("ns3::TcpL4Protocol::SocketType", TypeIdValue(TcpNewReno::GetTypeId()));
    Config::SetDefault("ns3::TcpSocket::SegmentSize", UintegerValue(1448));
    Config::SetDefault("ns3::TcpSocket::SndBufSize", UintegerValue(1 << 22));
    Config::SetDefault("ns3::TcpSocket::RcvBufSize", UintegerValue(1 << 22));

    const double mbps = flows;
    const uint32_t queue_pkts = static_cast<uint32_t>(mbps * 1e6 * 0.1 / 8 / 1500) + 1;
    PointToPointHelper bottleneck;
    bottleneck.SetDeviceAttribute("DataRate", DataRateValue(DataRate(mbps * 1e6)));
    bottleneck.SetChannelAttribute("Delay", TimeValue(MilliSeconds(20)));
    bottleneck.SetQueue("ns3::DropTailQueue", "MaxSize",
                        QueueSizeValue(QueueSize(QueueSizeUnit::PACKETS, queue_pkts)));
    PointToPointHelper access;
    access.SetDeviceAttribute("DataRate", DataRateValue(DataRate(mbps * 1e8)));
    access.SetChannelAttribute("Delay", TimeValue(Seconds(0)));

    PointToPointDumbbellHelper d(flows, access, flows, access, bottleneck);
    InternetStackHelper stack;
    d.InstallStack(stack);
    d.AssignIpv4Addresses(Ipv4AddressHelper("10.1.0.0", "255.255.255.0"),
                          Ipv4AddressHelper("10.2.0.0", "255.255.255.0"),
                          Ipv4AddressHelper("10.3.0.0", "255.255.255.0"));
    // Drop-tail at the device only: remove the fq_codel qdisc that address assignment
    // put in front of the bottleneck's devices.
    TrafficControlHelper tch;
    NetDeviceContainer bn(d.GetLeft()->GetDevice(0), d.GetRight()->GetDevice(0));
    tch.Uninstall(bn);
    Ipv4GlobalRoutingHelper::PopulateRoutingTables();

    ApplicationContainer sinks, sources;
    for (uint32_t i = 0; i < flows; ++i) {
        uint16_t port = 5000;
        PacketSinkHelper sink("ns3::TcpSocketFactory", InetSocketAddress(Ipv4Address::GetAny(), port));
        sinks.Add(sink.Install(d.GetRight(i)));
        BulkSendHelper src("ns3::TcpSocketFactory", InetSocketAddress(d.GetRightIpv4Address(i), port));
        src.SetAttribute("MaxBytes", UintegerValue(0));
        ApplicationContainer a = src.Install(d.GetLeft(i));
        a.Start(MilliSeconds(10.0 * i * 1000.0 / flows / 1000.0));
        sources.Add(a);
    }
    sinks.Start(Seconds(0));
    Simulator::Stop(Seconds(seconds));
    auto run0 = std::chrono::steady_clock::now();
    Simulator::Run();
    auto run1 = std::chrono::steady_clock::now();
    uint64_t rx = 0;
    for (uint32_t i = 0; i < sinks.GetN(); ++i) {
        rx += DynamicCast<PacketSink>(sinks.Get(i))->GetTotalRx();
    }
    uint64_t events = Simulator::GetEventCount();
    Simulator::Destroy();
    auto wall1 = std::chrono::steady_clock::now();
    double run_s = std::chrono::duration<double>(run1 - run0).count();
    double setup_s = std::chrono::duration<double>(run0 - wall0).count();
    double total_s = std::chrono::duration<double>(wall1 - wall0).count();
    std::printf("flows %u seconds %.1f setup_s %.3f run_s %.3f total_s %.3f events %llu "
                "goodput_mbps %.2f\n",
                flows, seconds, setup_s, run_s, total_s, static_cast<unsigned long long>(events),
                rx * 8.0 / seconds / 1e6);
    return 0;
}
