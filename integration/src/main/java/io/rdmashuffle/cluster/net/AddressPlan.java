/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.cluster.net;

import java.util.ArrayList;
import java.util.List;

/**
 * Names and addresses of a cluster on this machine: hosts {@code rs-h1..rs-hN} at {@code
 * <prefix>.11..} on a /24 of the benchmark range 198.18.0.0/15 (never a private range), the bridge
 * {@code rs-br0} in the root namespace at {@code <prefix>.1}, known to the cluster as {@code
 * rs-client}. Every object the harness creates carries the prefix {@code rs-}, so leftovers of a
 * crashed run are found by name.
 */
public record AddressPlan(String prefix, int hosts) {
  /** What every name the harness gives starts with. */
  public static final String NAME_PREFIX = "rs-";

  public static final String BRIDGE = NAME_PREFIX + "br0";
  public static final String CLIENT_NAME = NAME_PREFIX + "client";
  public static final String DEFAULT_PREFIX = "198.18.100";

  /** Address of host 1 is {@code prefix.(FIRST_HOST_OCTET + 1)}. */
  static final int FIRST_HOST_OCTET = 10;

  public AddressPlan {
    if (hosts < 1 || hosts > 40) {
      throw new IllegalArgumentException("hosts=" + hosts + ": must be 1 .. 40");
    }
    String[] octets = prefix.split("\\.");
    if (octets.length != 3
        || !octets[0].equals("198")
        || !(octets[1].equals("18") || octets[1].equals("19"))
        || !octets[2].matches("\\d{1,3}")
        || Integer.parseInt(octets[2]) > 255) {
      throw new IllegalArgumentException(
          "subnet prefix="
              + prefix
              + ": must be the first three octets of a /24 in 198.18.0.0/15, e.g. 198.18.100");
    }
  }

  /** The name of host {@code i} (1-based). */
  public String hostName(int i) {
    check(i);
    return NAME_PREFIX + "h" + i;
  }

  /** The address of host {@code i} (1-based). */
  public String hostAddress(int i) {
    check(i);
    return prefix + "." + (FIRST_HOST_OCTET + i);
  }

  /** The root namespace's address on the bridge. */
  public String clientAddress() {
    return prefix + ".1";
  }

  public String cidr(String address) {
    return address + "/24";
  }

  /** The root-namespace end of host {@code i}'s link (a veth on the bridge). */
  public String rootLink(int i) {
    return hostName(i) + "-br";
  }

  /**
   * What every host's {@code /etc/hosts} says: this cluster's names, nothing else of this machine.
   */
  public String hostsFile() {
    StringBuilder b = new StringBuilder("127.0.0.1 localhost\n");
    b.append(clientAddress()).append(' ').append(CLIENT_NAME).append('\n');
    for (int i = 1; i <= hosts; i++) {
      b.append(hostAddress(i)).append(' ').append(hostName(i)).append('\n');
    }
    return b.toString();
  }

  public List<Integer> indexes() {
    List<Integer> l = new ArrayList<>();
    for (int i = 1; i <= hosts; i++) {
      l.add(i);
    }
    return l;
  }

  private void check(int i) {
    if (i < 1 || i > hosts) {
      throw new IllegalArgumentException("host=" + i + ": must be 1 .. " + hosts);
    }
  }
}
