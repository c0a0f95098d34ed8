/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.transport.verbs;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * What this node offers for RDMA, read from the kernel's files: devices and their port states
 * ({@code /sys/class/infiniband}) and the locked-memory limit ({@code /proc/self/limits}). No
 * native code: safe to call anywhere.
 */
public final class RdmaDevices {
  /** A device port and the state the kernel reports for it (e.g. {@code ACTIVE}). */
  public record Port(String device, int port, String state, String linkLayer) {
    public boolean active() {
      return state.toUpperCase(Locale.ROOT).contains("ACTIVE");
    }

    @Override
    public String toString() {
      return device
          + " port "
          + port
          + ": "
          + state
          + (linkLayer.isEmpty() ? "" : " (" + linkLayer + ")");
    }
  }

  /** RLIMIT_MEMLOCK soft limit in bytes; {@link Long#MAX_VALUE} when unlimited, -1 unknown. */
  public static long memlockLimit() {
    return memlockLimit(Paths.get("/proc/self/limits"));
  }

  static long memlockLimit(Path limits) {
    try {
      for (String line : Files.readAllLines(limits, StandardCharsets.UTF_8)) {
        if (line.startsWith("Max locked memory")) {
          String[] f = line.substring("Max locked memory".length()).trim().split("\\s+");
          return f[0].equals("unlimited") ? Long.MAX_VALUE : Long.parseLong(f[0]);
        }
      }
    } catch (IOException | RuntimeException e) {
      return -1;
    }
    return -1;
  }

  /** Every port of every RDMA device; empty when there is none (or no InfiniBand support). */
  public static List<Port> ports() {
    return ports(Paths.get("/sys/class/infiniband"));
  }

  static List<Port> ports(Path root) {
    List<Port> out = new ArrayList<>();
    if (!Files.isDirectory(root)) {
      return out;
    }
    try (DirectoryStream<Path> devices = Files.newDirectoryStream(root)) {
      for (Path dev : devices) {
        Path portsDir = dev.resolve("ports");
        if (!Files.isDirectory(portsDir)) {
          continue;
        }
        try (DirectoryStream<Path> ports = Files.newDirectoryStream(portsDir)) {
          for (Path p : ports) {
            out.add(
                new Port(
                    dev.getFileName().toString(),
                    Integer.parseInt(p.getFileName().toString()),
                    read(p.resolve("state")),
                    read(p.resolve("link_layer"))));
          }
        }
      }
    } catch (IOException | RuntimeException e) {
      return out;
    }
    out.sort((a, b) -> a.toString().compareTo(b.toString()));
    return out;
  }

  private static String read(Path p) {
    try {
      return Files.readString(p, StandardCharsets.US_ASCII).trim();
    } catch (IOException e) {
      return "";
    }
  }

  private RdmaDevices() {}
}
