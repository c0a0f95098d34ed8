/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.transport.verbs;

import java.io.IOException;
import java.net.InetAddress;
import java.net.NetworkInterface;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Makes a host of the Soft-RoCE guest vanish without a word: every packet of the network device
 * that carries its address is dropped in both directions (a {@code clsact} qdisc with a
 * drop-everything filter on ingress and egress), as when its power or cable goes; no RDMA-CM
 * message leaves or reaches it. {@link #close} removes the qdisc, so the host is back. Needs root
 * and {@code tc}: the guest only.
 */
final class VanishedHost implements AutoCloseable {
  private final String device;

  private VanishedHost(String device) {
    this.device = device;
  }

  /** Whether this process can make hosts vanish (root in the Soft-RoCE guest). */
  static boolean possible() {
    return "1".equals(System.getenv("SOFTROCE_GUEST"));
  }

  /** Drops every packet of the device carrying {@code address} until closed. */
  static VanishedHost of(String address) throws IOException, InterruptedException {
    NetworkInterface nic = NetworkInterface.getByInetAddress(InetAddress.getByName(address));
    if (nic == null) {
      throw new IOException("no network device carries " + address);
    }
    String dev = nic.getName();
    // built as modules in Debian's kernels; loaded here rather than through the kernel's autoload
    run(false, "modprobe", "-a", "sch_ingress", "cls_matchall", "act_gact");
    run(true, "tc", "qdisc", "add", "dev", dev, "clsact");
    VanishedHost h = new VanishedHost(dev);
    try {
      for (String direction : List.of("ingress", "egress")) {
        run(true, "tc", "filter", "add", "dev", dev, direction, "matchall", "action", "drop");
      }
    } catch (IOException | RuntimeException e) {
      h.close();
      throw e;
    }
    return h;
  }

  @Override
  public void close() throws IOException {
    try {
      run(true, "tc", "qdisc", "del", "dev", device, "clsact");
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted while restoring " + device, e);
    }
  }

  private static void run(boolean mustSucceed, String... command)
      throws IOException, InterruptedException {
    Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes());
    if (!p.waitFor(30, TimeUnit.SECONDS)) {
      p.destroyForcibly();
      throw new IOException(String.join(" ", command) + ": no answer within 30 s");
    }
    if (mustSucceed && p.exitValue() != 0) {
      throw new IOException(
          String.join(" ", command) + ": exit status " + p.exitValue() + ": " + out.trim());
    }
  }
}
