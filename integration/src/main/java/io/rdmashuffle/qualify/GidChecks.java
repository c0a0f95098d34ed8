/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.qualify;

import java.net.InetAddress;
import java.util.List;
import java.util.Map;

/**
 * The GID checks of a host's RDMA port ({@link DeviceChecks} finds the port): its GID table, the
 * entry RDMA-CM uses for the transport's address under the RoCE mode configured for it, and a GID
 * index other tools are given ({@code --gid-index}) against that entry. Adds its checks and the
 * facts pairs are compared by.
 */
final class GidChecks {
  private final Sysfs sys;
  private final String scope;
  private final List<Check> checks;
  private final Map<String, String> facts;

  /**
   * @param facts the host's facts so far; its {@code link_layer} (from {@link
   *     DeviceChecks#portState}) tells whether the port runs RoCE
   */
  GidChecks(Sysfs sys, String scope, List<Check> checks, Map<String, String> facts) {
    this.sys = sys;
    this.scope = scope;
    this.checks = checks;
    this.facts = facts;
  }

  /**
   * The GID table, the entry RDMA-CM uses for the address, and {@code gidIndex} (a tool's choice,
   * e.g. perftest's -x) against it. Returns the entry, or null (a blocking failure added).
   */
  GidTable.Entry check(DeviceChecks.Port p, InetAddress address, Integer gidIndex) {
    GidTable table = GidTable.read(sys, p.device(), p.port());
    StringBuilder all = new StringBuilder();
    for (GidTable.Entry e : table.entries()) {
      all.append(all.length() == 0 ? "" : "; ").append(e.describe());
    }
    facts.put("gids", all.toString());
    if (!"Ethernet".equalsIgnoreCase(facts.get("link_layer"))) {
      checks.add(Check.info(scope, "GIDs", all.length() == 0 ? "none" : all.toString()));
      return table.entries().isEmpty() ? null : table.entries().get(0);
    }
    String configfs =
        "/sys/kernel/config/rdma_cm/" + p.device() + "/ports/" + p.port() + "/default_roce_mode";
    String mode = sys.read(configfs);
    String modeFound =
        mode.isEmpty() ? "RoCE v2 (the kernel's default; not configured in configfs)" : mode;
    if (mode.isEmpty()) {
      mode = "RoCE v2";
    }
    GidTable.Entry ours = table.forAddress(address, p.netdev(), mode);
    if (ours == null) {
      checks.add(
          Check.blocking(
              scope,
              "GIDs",
              "no GID of "
                  + p.device()
                  + " carries "
                  + address.getHostAddress()
                  + " (GIDs: "
                  + (all.length() == 0 ? "none" : all)
                  + ")",
              "The kernel adds a GID for each address of "
                  + p.netdev()
                  + ": check `ip addr show dev "
                  + p.netdev()
                  + "` and `rdma link`; the address must be on that interface."));
      return null;
    }
    facts.put("gid.index", Integer.toString(ours.index()));
    facts.put("gid.type", ours.type());
    String found =
        "RDMA-CM's RoCE mode: "
            + modeFound
            + "; for "
            + address.getHostAddress()
            + " it uses "
            + ours.describe()
            + ". All GIDs: "
            + all;
    if (!ours.roceV2()) {
      checks.add(
          Check.warn(
              scope,
              "GIDs",
              found,
              "RoCE v1 is layer 2 only (not routable, no ECN through IP): make RDMA-CM use RoCE"
                  + " v2: mkdir -p /sys/kernel/config/rdma_cm/"
                  + p.device()
                  + " && echo 'RoCE v2' > "
                  + configfs
                  + " (configfs mounted; repeat at boot)."));
    } else {
      checks.add(Check.pass(scope, "GIDs", found));
    }
    if (gidIndex != null) {
      GidTable.Entry given = table.at(gidIndex);
      String problem =
          given == null
              ? "there is no such GID on " + p.device() + " port " + p.port()
              : gidIndex == ours.index() ? null : GidTable.problem(given, address, p.netdev());
      if (problem == null && gidIndex != ours.index()) {
        problem = "RDMA-CM uses index " + ours.index() + " for this address";
      }
      String what = "GID index " + gidIndex + (given == null ? "" : " is " + given.describe());
      if (problem == null) {
        checks.add(Check.pass(scope, "GID index given", what + ": the one RDMA-CM uses"));
      } else {
        checks.add(
            Check.fail(
                scope,
                "GID index given",
                what + ": " + problem,
                "Use GID index "
                    + ours.index()
                    + " ("
                    + ours.address().getHostAddress()
                    + ", "
                    + ours.type()
                    + "), the one RDMA-CM and so rdma-shuffle use for "
                    + address.getHostAddress()
                    + ", wherever a tool picks its GID itself: perftest -x "
                    + ours.index()
                    + ", NCCL_IB_GID_INDEX="
                    + ours.index()
                    + ", UCX_IB_GID_INDEX="
                    + ours.index()
                    + " (and --gid-index "
                    + ours.index()
                    + " here)."));
      }
    }
    return ours;
  }
}
