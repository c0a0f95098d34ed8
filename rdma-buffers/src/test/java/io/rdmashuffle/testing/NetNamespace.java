/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.testing;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A network namespace joined to this one by a veth pair, for tests that need many source addresses
 * of their own (root and {@code ip} only): this side of the link gets {@code hostAddress/24} and
 * every extra address given (each its own /24), the namespace's side {@code nsAddress/24}, routed
 * back to the extra addresses. Names start with the test's own prefix and every address lies in
 * 198.18.0.0/15; {@link #close()} deletes the namespace and the link (also one a crashed run left
 * behind, at creation).
 */
public final class NetNamespace implements AutoCloseable {
  private final String name;
  private final String hostLink;

  private NetNamespace(String name, String hostLink) {
    this.name = name;
    this.hostLink = hostLink;
  }

  /** Whether this process may make namespaces here (root, and the ip tool). */
  public static boolean available() {
    return Files.isExecutable(Path.of("/usr/sbin/ip"))
        && "root".equals(System.getProperty("user.name"));
  }

  /**
   * @param name the namespace (its veth ends are {@code name-h} and {@code name-n})
   * @param extra more addresses for this side, each with its own /24 routed from the namespace
   */
  public static NetNamespace create(
      String name, String hostAddress, String nsAddress, List<String> extra) throws IOException {
    String host = name + "-h";
    String ns = name + "-n";
    deleteQuietly(name, host);
    NetNamespace n = new NetNamespace(name, host);
    try {
      ip("netns", "add", name);
      ip("link", "add", host, "type", "veth", "peer", "name", ns);
      ip("link", "set", ns, "netns", name);
      ip("addr", "add", hostAddress + "/24", "dev", host);
      ip("link", "set", host, "up");
      ip("-n", name, "link", "set", "lo", "up");
      ip("-n", name, "addr", "add", nsAddress + "/24", "dev", ns);
      ip("-n", name, "link", "set", ns, "up");
      for (String a : extra) {
        ip("addr", "add", a + "/24", "dev", host);
        String net = a.substring(0, a.lastIndexOf('.')) + ".0/24";
        ip("-n", name, "route", "add", net, "via", hostAddress);
      }
      return n;
    } catch (IOException | RuntimeException e) {
      n.close();
      throw e;
    }
  }

  /** {@code command} run inside the namespace. */
  public List<String> exec(List<String> command) {
    List<String> c = new ArrayList<>(List.of("ip", "netns", "exec", name));
    c.addAll(command);
    return c;
  }

  @Override
  public void close() {
    deleteQuietly(name, hostLink);
  }

  private static void deleteQuietly(String name, String hostLink) {
    try {
      run(List.of("ip", "link", "del", hostLink));
    } catch (IOException e) {
      // not there
    }
    try {
      run(List.of("ip", "netns", "del", name));
    } catch (IOException e) {
      // not there
    }
  }

  private static void ip(String... args) throws IOException {
    List<String> c = new ArrayList<>(List.of("ip"));
    c.addAll(List.of(args));
    run(c);
  }

  private static void run(List<String> command) throws IOException {
    Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
    try {
      if (!p.waitFor(30, TimeUnit.SECONDS)) {
        p.destroyForcibly();
        throw new IOException(String.join(" ", command) + ": no answer within 30 s");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted", e);
    }
    if (p.exitValue() != 0) {
      throw new IOException(
          String.join(" ", command)
              + ": exit "
              + p.exitValue()
              + ": "
              + new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim());
    }
  }
}
