/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.qualify;

import io.rdmashuffle.config.RdmaConf;
import io.rdmashuffle.node.TransportSelector;
import io.rdmashuffle.transport.provider.PinnedMemory;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * The checks of one host, for the address its transport binds ({@code --hosts}; by default the
 * {@code host} setting, else the first address of the first active RDMA port's interface): the
 * device and port that serve it, link layer, GIDs, MTU, limits against the configured bounds,
 * firmware and driver, PFC and ECN, our native library and DiSNI, on-demand paging, the transport
 * {@code auto} picks, and whether perftest is installed.
 */
final class HostProbe {
  private final Sysfs sys;
  private final Machine machine;
  private final Function<RdmaConf, TransportSelector.Choice> probe;

  HostProbe(Sysfs sys, Machine machine, Function<RdmaConf, TransportSelector.Choice> probe) {
    this.sys = sys;
    this.machine = machine;
    this.probe = probe;
  }

  /** This host, probed by the transport's own code (as the doctor probes it). */
  static HostProbe local() {
    return new HostProbe(
        Sysfs.host(),
        Machine.local(),
        conf -> TransportSelector.standard().choose(conf, PinnedMemory.of(conf, true, true)));
  }

  /**
   * @param host the address (or name) to check; null for this host's default
   * @param gidIndex a GID index a tool uses (perftest's -x), checked against RDMA-CM's; or null
   */
  HostReport run(String host, RdmaConf conf, Integer gidIndex) {
    List<Check> checks = new ArrayList<>();
    Map<String, String> facts = new LinkedHashMap<>();
    InetAddress address = resolve(host, conf, checks);
    String name = host == null ? (address == null ? "this host" : address.getHostAddress()) : host;
    DeviceChecks.Port port = null;
    if (address != null) {
      String netdev = machine.interfaceOf(address);
      DeviceChecks d = new DeviceChecks(sys, machine, name, checks, facts);
      port = d.device(address, netdev);
      if (port != null && d.portState(port)) {
        new GidChecks(sys, name, checks, facts).check(port, address, gidIndex);
        d.mtu(port);
        d.firmwareAndDriver(port);
        d.pfcEcn(port);
      } else if (port != null) {
        d.firmwareAndDriver(port);
      }
    }
    LimitChecks limits = new LimitChecks(sys, name, checks);
    limits.memlock(conf);
    limits.mappings(conf);
    limits.openFiles(conf);
    new NativeChecks(name, checks).add(probe.apply(conf), port == null ? null : port.device());
    perftest(name, checks, facts);
    return new HostReport(name, facts, checks);
  }

  private InetAddress resolve(String host, RdmaConf conf, List<Check> checks) {
    String wanted = host;
    if (wanted == null) {
      String configured = conf.get(io.rdmashuffle.config.RdmaShuffleConfig.HOST);
      wanted = configured == null || configured.isEmpty() ? null : configured;
    }
    if (wanted != null) {
      try {
        return InetAddress.getByName(wanted);
      } catch (UnknownHostException e) {
        checks.add(
            Check.blocking(
                wanted,
                "address",
                wanted + " does not resolve",
                "Give the address (or a name that resolves to it) the transport binds on this"
                    + " host."));
        return null;
      }
    }
    for (DeviceChecks.Port p : new DeviceChecks(sys, machine, "", checks, Map.of()).ports()) {
      if (sys.read("/sys/class/infiniband/" + p.device() + "/ports/" + p.port() + "/state")
          .contains("ACTIVE")) {
        List<InetAddress> addresses = machine.addressesOf(p.netdev());
        if (!addresses.isEmpty()) {
          return addresses.get(0);
        }
      }
    }
    checks.add(
        Check.blocking(
            "this host",
            "RDMA device",
            "no ACTIVE RDMA port with an IPv4 address on its interface",
            "Load the NIC's RDMA driver and rdma-core (`ibv_devinfo` must list an ACTIVE port),"
                + " give its interface an address, or name the address with --hosts."));
    return null;
  }

  private void perftest(String scope, List<Check> checks, Map<String, String> facts) {
    String bw = machine.which("ib_read_bw");
    String lat = machine.which("ib_read_lat");
    facts.put("perftest", bw.isEmpty() || lat.isEmpty() ? "" : bw);
    if (!bw.isEmpty() && !lat.isEmpty()) {
      checks.add(Check.pass(scope, "perftest", "ib_read_bw and ib_read_lat at " + bw));
      return;
    }
    checks.add(
        Check.warn(
            scope,
            "perftest",
            "ib_read_bw or ib_read_lat is not installed (not on the PATH)",
            "Install perftest (Debian and Ubuntu: apt-get install perftest; RHEL: dnf install"
                + " perftest) on every host: the READ figures of rdma-shuffle then have the"
                + " device's own baseline beside them."));
  }
}
