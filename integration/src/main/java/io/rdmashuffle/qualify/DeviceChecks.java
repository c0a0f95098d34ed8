/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.qualify;

import java.net.InetAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * A host's RDMA device as the kernel shows it, for the address the transport binds: which device
 * and port serve it, the port's state and link layer, the MTU, firmware and driver, PFC and ECN
 * (the port's GIDs: {@link GidChecks}). Adds its checks and the facts pairs are compared by.
 */
final class DeviceChecks {
  private static final String IB = "/sys/class/infiniband/";

  private final Sysfs sys;
  private final Machine machine;
  private final String scope;
  private final List<Check> checks;
  private final Map<String, String> facts;

  DeviceChecks(
      Sysfs sys, Machine machine, String scope, List<Check> checks, Map<String, String> facts) {
    this.sys = sys;
    this.machine = machine;
    this.scope = scope;
    this.checks = checks;
    this.facts = facts;
  }

  /** A device port and the network interface it serves. */
  record Port(String device, int port, String netdev) {}

  /** Every port of every RDMA device, each with its network interface where it has one. */
  List<Port> ports() {
    List<Port> out = new ArrayList<>();
    for (String dev : sys.list(IB)) {
      for (String p : sys.list(IB + dev + "/ports")) {
        out.add(new Port(dev, Integer.parseInt(p), netdevOf(dev, Integer.parseInt(p))));
      }
    }
    return out;
  }

  /**
   * The interface of a port: its GIDs' ({@code gid_attrs/ndevs}), else the PCI device's, else
   * Soft-RoCE's {@code parent}.
   */
  private String netdevOf(String dev, int port) {
    String base = IB + dev + "/ports/" + port + "/gid_attrs/ndevs/";
    for (String i : sys.list(base)) {
      String n = sys.read(base + i);
      if (!n.isEmpty()) {
        return n;
      }
    }
    List<String> pci = sys.list(IB + dev + "/device/net");
    if (!pci.isEmpty()) {
      return pci.get(0);
    }
    return sys.read(IB + dev + "/parent");
  }

  /**
   * Checks the device and port that serve {@code address} (on {@code netdev}); returns it, or null
   * (a blocking failure added) when there is none.
   */
  Port device(InetAddress address, String netdev) {
    List<Port> ports = ports();
    facts.put("address", address.getHostAddress());
    facts.put("netdev", netdev);
    if (ports.isEmpty()) {
      checks.add(
          Check.blocking(
              scope,
              "RDMA device",
              "no RDMA device (/sys/class/infiniband is empty or absent)",
              "Load the NIC's RDMA driver (mlx5_ib, bnxt_re, irdma, ...) and install rdma-core"
                  + " (Debian: apt-get install rdma-core ibverbs-providers); `ibv_devices` must list"
                  + " the device. Soft-RoCE on a plain NIC: rdma link add rxe0 type rxe netdev "
                  + (netdev.isEmpty() ? "IF" : netdev)
                  + "."));
      return null;
    }
    for (Port p : ports) {
      if (!netdev.isEmpty() && p.netdev().equals(netdev)) {
        facts.put("device", p.device());
        facts.put("port", Integer.toString(p.port()));
        checks.add(
            Check.pass(
                scope,
                "RDMA device",
                p.device()
                    + " port "
                    + p.port()
                    + " on "
                    + netdev
                    + " ("
                    + address.getHostAddress()
                    + ")"));
        return p;
      }
    }
    StringBuilder all = new StringBuilder();
    for (Port p : ports) {
      all.append(all.length() == 0 ? "" : ", ")
          .append(p.device())
          .append(" port ")
          .append(p.port())
          .append(p.netdev().isEmpty() ? "" : " on " + p.netdev());
    }
    checks.add(
        Check.blocking(
            scope,
            "RDMA device",
            address.getHostAddress()
                + (netdev.isEmpty() ? " is on no interface of this host" : " is on " + netdev)
                + ", and no RDMA device serves it (devices: "
                + all
                + ")",
            "Bind the transport to an address of the RDMA interface (spark.shuffle.rdma.host /"
                + " mapreduce.shuffle.rdma.host, and --hosts here), or put this address on that"
                + " interface."));
    return null;
  }

  /** Port state and link layer; false (a blocking failure added) when the port is not ACTIVE. */
  boolean portState(Port p) {
    String base = IB + p.device() + "/ports/" + p.port() + "/";
    String state = sys.read(base + "state");
    String phys = sys.read(base + "phys_state");
    String layer = sys.read(base + "link_layer");
    facts.put("link_layer", layer);
    checks.add(
        Check.info(
            scope,
            "link layer",
            layer.equalsIgnoreCase("Ethernet")
                ? "Ethernet: RoCE (RDMA over UDP/IP on " + p.netdev() + ")"
                : layer.isEmpty() ? "unknown" : layer));
    String found = "port " + p.port() + ": " + state + (phys.isEmpty() ? "" : ", physical " + phys);
    if (state.contains("ACTIVE")) {
      checks.add(Check.pass(scope, "port state", found));
      return true;
    }
    checks.add(
        Check.blocking(
            scope,
            "port state",
            found,
            layer.equalsIgnoreCase("InfiniBand")
                ? "An InfiniBand port stays INIT until a subnet manager configures it: run one"
                    + " (opensm) on the fabric; check the cable."
                : "Bring the link up (ip link set dev "
                    + p.netdev()
                    + " up) and check the cable and the switch port."));
    return false;
  }

  /**
   * The port's active MTU (what an RDMA packet carries): sysfs has none, so {@code ibv_devinfo}'s
   * {@code active_mtu}; empty when it can't be asked.
   */
  String activeMtu(Port p) {
    if (machine.which("ibv_devinfo").isEmpty()) {
      return "";
    }
    Machine.Ran r =
        machine.run(List.of("ibv_devinfo", "-d", p.device(), "-i", Integer.toString(p.port())));
    java.util.regex.Matcher m =
        java.util.regex.Pattern.compile("active_mtu:\\s*(\\d+)").matcher(r.output());
    return r.status() == 0 && m.find() ? m.group(1) : "";
  }

  /** The interface's MTU and the port's active MTU (what a RoCE packet carries). */
  void mtu(Port p) {
    String netMtu = sys.read("/sys/class/net/" + p.netdev() + "/mtu");
    String activeBytes = activeMtu(p);
    facts.put("netdev.mtu", netMtu);
    facts.put("active_mtu", activeBytes);
    String found =
        p.netdev()
            + " MTU "
            + (netMtu.isEmpty() ? "unknown" : netMtu)
            + ", "
            + p.device()
            + " active MTU "
            + (activeBytes.isEmpty()
                ? "unknown (ibv_devinfo, of ibverbs-utils, tells it)"
                : activeBytes);
    if (!"Ethernet".equalsIgnoreCase(facts.get("link_layer")) || activeBytes.equals("4096")) {
      checks.add(Check.pass(scope, "MTU", found));
      return;
    }
    checks.add(
        Check.warn(
            scope,
            "MTU",
            found,
            "RoCE packets carry at most "
                + activeBytes
                + " bytes here: the interface's MTU limits them. With jumbo frames (ip link set dev "
                + p.netdev()
                + " mtu 9000, persisted in the network configuration, and the same on every switch"
                + " port of the path) they carry 4096: fewer packets per READ."));
  }

  /** Firmware, board and driver (INFO: what to quote in a bug report, and to compare hosts by). */
  void firmwareAndDriver(Port p) {
    String base = IB + p.device() + "/";
    String fw = sys.read(base + "fw_ver");
    String hca = sys.read(base + "hca_type");
    String board = sys.read(base + "board_id");
    String driver = sys.linkName(base + "device/driver");
    String module = driver;
    if (driver.isEmpty() && !sys.read(base + "parent").isEmpty()) {
      module = "rdma_rxe"; // Soft-RoCE has no bus device
    }
    String modBase = "/sys/module/" + module.replace('-', '_') + "/";
    String version = sys.read(modBase + "version");
    String srcversion = sys.read(modBase + "srcversion");
    String taint = sys.read(modBase + "taint");
    String kernel = sys.read("/proc/sys/kernel/osrelease");
    StringBuilder f = new StringBuilder();
    f.append("firmware ").append(fw.isEmpty() ? "(none reported)" : fw);
    if (!hca.isEmpty()) {
      f.append(", HCA ").append(hca);
    }
    if (!board.isEmpty()) {
      f.append(", board ").append(board);
    }
    f.append("; driver ").append(module.isEmpty() ? "unknown" : module);
    if (!version.isEmpty()) {
      f.append(" ").append(version);
    }
    if (!srcversion.isEmpty()) {
      f.append(" (srcversion ").append(srcversion).append(")");
    }
    if (taint.contains("O")) {
      f.append(", built out of tree");
    }
    f.append("; kernel ").append(kernel);
    facts.put("firmware", fw);
    facts.put("driver", module + (srcversion.isEmpty() ? "" : " " + srcversion));
    checks.add(Check.info(scope, "firmware and driver", f.toString()));
  }

  /** PFC and ECN where the NIC shows them ({@code dcb}, mlx5's {@code ecn/roce_*}). */
  void pfcEcn(Port p) {
    if (!"Ethernet".equalsIgnoreCase(facts.get("link_layer"))) {
      checks.add(Check.info(scope, "PFC and ECN", "InfiniBand: credit-based, lossless by design"));
      return;
    }
    String pfc = "not readable";
    boolean pfcOn = false;
    if (machine.which("dcb").isEmpty()) {
      pfc = "not readable (no dcb tool: iproute2 5.11 or later)";
    } else {
      Machine.Ran r = machine.run(List.of("dcb", "pfc", "show", "dev", p.netdev()));
      String out = r.output().replace('\n', ' ').trim();
      if (r.status() == 0) {
        pfc = out;
        pfcOn = out.matches(".*prio-pfc.*:on.*");
      } else {
        pfc = "not readable (dcb: " + out + ")";
      }
    }
    List<String> ecn = new ArrayList<>();
    for (String side : List.of("roce_np", "roce_rp")) {
      String dir = "/sys/class/net/" + p.netdev() + "/ecn/" + side + "/enable/";
      for (String prio : sys.list(dir)) {
        if (sys.read(dir + prio).equals("1")) {
          ecn.add(side + " priority " + prio);
        }
      }
    }
    boolean ecnReadable = sys.exists("/sys/class/net/" + p.netdev() + "/ecn");
    String found =
        "PFC: "
            + pfc
            + "; ECN: "
            + (ecnReadable
                ? ecn.isEmpty() ? "off on every priority" : "on for " + String.join(", ", ecn)
                : "not exposed by the driver");
    if (pfcOn || !ecn.isEmpty()) {
      checks.add(Check.pass(scope, "PFC and ECN", found));
      return;
    }
    checks.add(
        Check.warn(
            scope,
            "PFC and ECN",
            found,
            "RoCE needs a fabric that does not drop under load: PFC on the RoCE traffic's priority"
                + " (dcb pfc set dev "
                + p.netdev()
                + " prio-pfc 3:on, or the vendor's tool, e.g. mlnx_qos -i "
                + p.netdev()
                + " --pfc 0,0,0,1,0,0,0,0), or ECN with DCQCN end to end, and the same on the"
                + " switches. Without either, congestion drops packets and READs fall back to"
                + " go-back-N retransmission."));
  }
}
