/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.qualify;

import io.rdmashuffle.config.RdmaConf;
import io.rdmashuffle.config.RdmaShuffleConfig;
import io.rdmashuffle.config.ServerConfig;
import io.rdmashuffle.transport.provider.PinnedMemory;
import java.util.List;

/**
 * The process limits and kernel settings the serving and reading sides need, against the bounds
 * they are configured with: locked memory (what verbs pins), memory mappings (served files are
 * mapped) and open files (served files and connections). Read for this process, as run by the
 * operator: a service started by systemd or a resource manager gets the limits its unit gives it.
 */
final class LimitChecks {
  /** Mappings a JVM needs for itself beside served files (heap, code, stacks, libraries). */
  static final long JVM_MAPPINGS = 4096;

  /** Open files a JVM needs for itself beside served files and connections. */
  static final long JVM_FILES = 1024;

  private final Sysfs sys;
  private final String scope;
  private final List<Check> checks;

  LimitChecks(Sysfs sys, String scope, List<Check> checks) {
    this.sys = sys;
    this.scope = scope;
    this.checks = checks;
  }

  /**
   * A soft limit of {@code /proc/self/limits}: bytes or a count; MAX_VALUE unlimited, -1 unknown.
   */
  long limit(String name) {
    for (String line : sys.lines("/proc/self/limits")) {
      if (line.startsWith(name)) {
        String[] f = line.substring(name.length()).trim().split("\\s+");
        try {
          return f[0].equals("unlimited") ? Long.MAX_VALUE : Long.parseLong(f[0]);
        } catch (NumberFormatException e) {
          return -1;
        }
      }
    }
    return -1;
  }

  static String amount(long v) {
    return v == Long.MAX_VALUE ? "unlimited" : v < 0 ? "unknown" : Long.toString(v);
  }

  void memlock(RdmaConf conf) {
    long memlock = limit("Max locked memory");
    PinnedMemory both = PinnedMemory.of(conf, true, true);
    String shortfall = both.memlockShortfall(memlock);
    String found =
        "memlock "
            + amount(memlock)
            + (memlock >= 0 && memlock != Long.MAX_VALUE ? " bytes" : "")
            + "; a process that serves and reads (a Spark executor) may pin "
            + both.bytes()
            + " bytes ("
            + both.bounds()
            + ")";
    if (shortfall == null) {
      checks.add(Check.pass(scope, "memlock", found));
      return;
    }
    checks.add(
        Check.blocking(
            scope,
            "memlock",
            found,
            "verbs can't start with this limit (auto falls back to tcp). Raise it where the"
                + " services start: LimitMEMLOCK=infinity in the NodeManager's (or Spark worker's)"
                + " systemd unit, `* - memlock unlimited` in /etc/security/limits.conf for"
                + " sessions, `ulimit -l unlimited` in the script that starts them; or lower "
                + conf.keyOf(RdmaShuffleConfig.SERVE_MAX_PINNED_BYTES)
                + " and "
                + conf.keyOf(RdmaShuffleConfig.BUFFERS_MAX_BYTES)
                + " below it."));
  }

  void mappings(RdmaConf conf) {
    String text = sys.read("/proc/sys/vm/max_map_count");
    int outputs = conf.get(RdmaShuffleConfig.SERVE_MAX_OPEN_OUTPUTS);
    long need = 2L * outputs + JVM_MAPPINGS;
    String found =
        "vm.max_map_count "
            + (text.isEmpty() ? "unknown" : text)
            + "; needed: 2 x "
            + conf.keyOf(RdmaShuffleConfig.SERVE_MAX_OPEN_OUTPUTS)
            + " ("
            + outputs
            + ") + "
            + JVM_MAPPINGS
            + " for the JVM = "
            + need;
    long have;
    try {
      have = Long.parseLong(text);
    } catch (NumberFormatException e) {
      checks.add(Check.skip(scope, "vm.max_map_count", found, "could not read it"));
      return;
    }
    if (have >= need) {
      checks.add(Check.pass(scope, "vm.max_map_count", found));
      return;
    }
    checks.add(
        Check.fail(
            scope,
            "vm.max_map_count",
            found,
            "Served files are mapped (a piece per memory.pieceSize each): beyond the limit mmap"
                + " fails and outputs are read the stock way. sysctl -w vm.max_map_count="
                + Math.max(need, 262144)
                + " and persist it in /etc/sysctl.d/; or lower "
                + conf.keyOf(RdmaShuffleConfig.SERVE_MAX_OPEN_OUTPUTS)
                + "."));
  }

  void openFiles(RdmaConf conf) {
    long nofile = limit("Max open files");
    int outputs = conf.get(RdmaShuffleConfig.SERVE_MAX_OPEN_OUTPUTS);
    int connections = conf.get(ServerConfig.SERVER_MAX_CONNECTIONS);
    long need = outputs + connections + JVM_FILES;
    String found =
        "open files "
            + amount(nofile)
            + "; needed: "
            + conf.keyOf(RdmaShuffleConfig.SERVE_MAX_OPEN_OUTPUTS)
            + " ("
            + outputs
            + ") + "
            + conf.keyOf(ServerConfig.SERVER_MAX_CONNECTIONS)
            + " ("
            + connections
            + ") + "
            + JVM_FILES
            + " for the JVM = "
            + need;
    if (nofile < 0 || nofile >= need) {
      checks.add(Check.pass(scope, "open files", found));
      return;
    }
    checks.add(
        Check.fail(
            scope,
            "open files",
            found,
            "Raise the open-file limit where the services start (LimitNOFILE="
                + Math.max(need, 65536)
                + " in their systemd unit, nofile in /etc/security/limits.conf), or lower "
                + conf.keyOf(RdmaShuffleConfig.SERVE_MAX_OPEN_OUTPUTS)
                + "."));
  }
}
