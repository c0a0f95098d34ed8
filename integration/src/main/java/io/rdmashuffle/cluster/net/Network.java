/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.cluster.net;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The cluster's network on this machine: a network namespace per host joined to a bridge in the
 * root namespace by a veth pair ({@code rs-hN-br} on the bridge, {@code eth0} in the host), the
 * root namespace's own address on the bridge, each host's {@code /etc/hosts} (through {@code
 * /etc/netns/rs-hN/}, which {@code ip netns exec} mounts over {@code /etc}), an optional {@code
 * tbf} rate on each host's link in both directions, and the link fault (down, up). Created by
 * {@link #create}; removed, with everything else of the harness, by {@link Teardown}.
 */
public final class Network {
  /** Where {@code ip netns exec NAME} finds the files it mounts over {@code /etc}. */
  static final Path ETC_NETNS = Path.of("/etc/netns");

  private final AddressPlan plan;

  private Network(AddressPlan plan) {
    this.plan = plan;
  }

  public AddressPlan plan() {
    return plan;
  }

  /** The network of a cluster that exists already (built by another process). */
  public static Network attach(AddressPlan plan) {
    return new Network(plan);
  }

  /** Builds the bridge and every host's namespace and link; undone by {@link Teardown}. */
  public static Network create(AddressPlan plan) {
    Network n = new Network(plan);
    Shell.run("ip", "link", "add", AddressPlan.BRIDGE, "type", "bridge");
    Shell.run("ip", "addr", "add", plan.cidr(plan.clientAddress()), "dev", AddressPlan.BRIDGE);
    Shell.run("ip", "link", "set", AddressPlan.BRIDGE, "up");
    for (int i : plan.indexes()) {
      n.addHost(i);
    }
    return n;
  }

  private void addHost(int i) {
    String ns = plan.hostName(i);
    Shell.run("ip", "netns", "add", ns);
    writeEtc(ns);
    Shell.run(
        "ip", "link", "add", plan.rootLink(i), "type", "veth", "peer", "name", "eth0", "netns", ns);
    Shell.run("ip", "link", "set", plan.rootLink(i), "master", AddressPlan.BRIDGE, "up");
    Shell.run("ip", "-n", ns, "addr", "add", plan.cidr(plan.hostAddress(i)), "dev", "eth0");
    Shell.run("ip", "-n", ns, "link", "set", "eth0", "up");
    Shell.run("ip", "-n", ns, "link", "set", "lo", "up");
  }

  /**
   * The host's {@code /etc/hosts} names this cluster only (the machine's own name must not resolve
   * to a host: each host has its own), and an empty {@code resolv.conf} makes a DNS lookup fail at
   * once on the host's loopback instead of waiting for a server it can't reach.
   */
  private void writeEtc(String ns) {
    try {
      Path dir = ETC_NETNS.resolve(ns);
      Files.createDirectories(dir);
      Files.writeString(dir.resolve("hosts"), plan.hostsFile());
      Files.writeString(dir.resolve("resolv.conf"), "# rdma-shuffle cluster harness: no DNS\n");
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write " + ETC_NETNS.resolve(ns), e);
    }
  }

  /** The {@code /etc/hosts} of the cluster's hosts, also used by clients in the root namespace. */
  public Path hostsFile(int host) {
    return ETC_NETNS.resolve(plan.hostName(host)).resolve("hosts");
  }

  /**
   * Takes host {@code i}'s link down (its cable pulled: the bridge side of its veth goes down, so
   * its packets are dropped and peers' connections time out) or up again.
   */
  public void link(int i, boolean up) {
    Shell.run("ip", "link", "set", plan.rootLink(i), up ? "up" : "down");
  }

  /** Whether host {@code i}'s link is up (its bridge side). */
  public boolean linkUp(int i) {
    String out = Shell.run("ip", "-o", "link", "show", plan.rootLink(i));
    int open = out.indexOf('<');
    int close = out.indexOf('>', open);
    return open >= 0
        && close > open
        && (',' + out.substring(open + 1, close) + ',').contains(",UP,");
  }

  /**
   * Limits host {@code i}'s link to {@code rate} (tc syntax: {@code 300mbit}, {@code 1gbit}) in
   * both directions with {@code tbf} (what leaves the host on its {@code eth0}, what reaches it on
   * the bridge side); {@code null} removes the limit.
   */
  public void rate(int i, Rate rate) {
    String ns = plan.hostName(i);
    if (rate == null) {
      Shell.exec("tc", "qdisc", "del", "dev", plan.rootLink(i), "root");
      Shell.exec("ip", "netns", "exec", ns, "tc", "qdisc", "del", "dev", "eth0", "root");
      return;
    }
    Shell.run(rate.tbf("tc", "qdisc", "replace", "dev", plan.rootLink(i), "root"));
    Shell.run(rate.tbf("ip", "netns", "exec", ns, "tc", "qdisc", "replace", "dev", "eth0", "root"));
  }

  /** What {@code tc} shows on host {@code i}'s link, both ends. */
  public String qdiscs(int i) {
    return Shell.run("tc", "qdisc", "show", "dev", plan.rootLink(i)).strip()
        + " | "
        + Shell.run("ip", "netns", "exec", plan.hostName(i), "tc", "qdisc", "show", "dev", "eth0")
            .strip();
  }
}
