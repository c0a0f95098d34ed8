/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.qualify;

import java.net.InetAddress;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;

/**
 * A port's GID table as the kernel shows it ({@code ports/N/gids/I}, {@code gid_attrs/types/I},
 * {@code gid_attrs/ndevs/I}), and the entry RDMA-CM uses for an address: the one of the address's
 * network device that carries the address itself (an IPv4 address as {@code ::ffff:a.b.c.d}), of
 * the port's default RoCE mode (RoCE v2 unless configured otherwise).
 */
record GidTable(List<GidTable.Entry> entries) {
  /** One used entry: index, GID as sysfs prints it, type ({@code RoCE v2}, {@code IB/RoCE v1}). */
  record Entry(int index, String gid, String type, String netdev) {
    boolean roceV2() {
      return type.equalsIgnoreCase("RoCE v2");
    }

    boolean linkLocal() {
      return gid.toLowerCase(Locale.ROOT).startsWith("fe80:");
    }

    /** The address in the GID: IPv4 for {@code ::ffff:a.b.c.d}, else IPv6. */
    InetAddress address() {
      byte[] raw = HexFormat.of().parseHex(gid.replace(":", ""));
      try {
        boolean v4 = true;
        for (int i = 0; i < 10; i++) {
          v4 &= raw[i] == 0;
        }
        v4 &= raw[10] == (byte) 0xff && raw[11] == (byte) 0xff;
        if (v4) {
          return InetAddress.getByAddress(new byte[] {raw[12], raw[13], raw[14], raw[15]});
        }
        return InetAddress.getByAddress(raw);
      } catch (java.net.UnknownHostException e) {
        throw new IllegalStateException(e);
      }
    }

    String describe() {
      String a = address().getHostAddress();
      return "index "
          + index
          + ": "
          + a
          + " ("
          + (type.isEmpty() ? "type unknown" : type)
          + (netdev.isEmpty() ? "" : ", " + netdev)
          + (linkLocal() ? ", link-local" : "")
          + ")";
    }
  }

  private static final String ZERO = "0000:0000:0000:0000:0000:0000:0000:0000";

  /** The used entries of {@code /sys/class/infiniband/DEV/ports/PORT}. */
  static GidTable read(Sysfs sys, String device, int port) {
    String base = "/sys/class/infiniband/" + device + "/ports/" + port + "/";
    List<Entry> out = new ArrayList<>();
    for (String i : sys.list(base + "gids")) {
      String gid = sys.read(base + "gids/" + i);
      if (gid.isEmpty() || gid.equals(ZERO)) {
        continue;
      }
      out.add(
          new Entry(
              Integer.parseInt(i),
              gid,
              sys.read(base + "gid_attrs/types/" + i),
              sys.read(base + "gid_attrs/ndevs/" + i)));
    }
    return new GidTable(List.copyOf(out));
  }

  Entry at(int index) {
    for (Entry e : entries) {
      if (e.index() == index) {
        return e;
      }
    }
    return null;
  }

  /**
   * The entry RDMA-CM uses for {@code address} on {@code netdev}: that address, that device, of
   * type {@code mode} (the port's default RoCE mode); null when there is none.
   */
  Entry forAddress(InetAddress address, String netdev, String mode) {
    Entry fallback = null;
    for (Entry e : entries) {
      if (!e.address().equals(address) || (!netdev.isEmpty() && !e.netdev().equals(netdev))) {
        continue;
      }
      if (e.type().equalsIgnoreCase(mode)) {
        return e;
      }
      fallback = fallback == null ? e : fallback;
    }
    return fallback;
  }

  /**
   * What is wrong with using {@code e} for {@code address} on {@code netdev}; null when nothing.
   */
  static String problem(Entry e, InetAddress address, String netdev) {
    if (!e.roceV2() && !e.type().isEmpty() && e.type().contains("RoCE")) {
      return "it is RoCE v1 (layer 2 only: not routable, and no ECN marking through IP)";
    }
    if (e.linkLocal()) {
      return "it is a link-local IPv6 GID, not the host's address";
    }
    if (!netdev.isEmpty() && !e.netdev().isEmpty() && !e.netdev().equals(netdev)) {
      return "it belongs to "
          + e.netdev()
          + ", not to "
          + netdev
          + " (the interface of the address)";
    }
    if (!e.address().equals(address)) {
      return "it carries " + e.address().getHostAddress() + ", not " + address.getHostAddress();
    }
    return null;
  }
}
