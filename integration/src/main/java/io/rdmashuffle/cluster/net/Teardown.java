/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.cluster.net;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Stream;

/**
 * Removes everything of the harness on this machine, found by name and mark rather than remembered,
 * so the same code ends a test's cluster, {@code cluster down}, and the leftovers of a run that
 * crashed: every process of every {@code rs-h*} namespace ({@code ip netns pids}), every process
 * that carries the harness's environment mark ({@link #MARK}: clients started in the root namespace
 * and their children), then the namespaces, the {@code rs-*} links (the bridge, the veths and with
 * them their qdiscs) and {@code /etc/netns/rs-*}. Stateless.
 */
public final class Teardown {
  /** Environment variable set on every process the harness starts (children inherit it). */
  public static final String MARK = "RDMA_SHUFFLE_CLUSTER";

  private static final long GRACE_MILLIS = 3_000;

  private Teardown() {}

  /** The harness's namespaces that exist now. */
  public static List<String> namespaces() {
    List<String> out = new ArrayList<>();
    for (String line : Shell.lines(Shell.run("ip", "netns", "list"))) {
      String name = line.split("\\s+")[0];
      if (name.startsWith(AddressPlan.NAME_PREFIX + "h")) {
        out.add(name);
      }
    }
    return out;
  }

  /** The harness's links in the root namespace that exist now. */
  public static List<String> links() {
    List<String> out = new ArrayList<>();
    for (String line : Shell.lines(Shell.run("ip", "-o", "link", "show"))) {
      String[] f = line.split(":\\s+", 3);
      if (f.length >= 2) {
        String name = f[1].split("@")[0];
        if (name.startsWith(AddressPlan.NAME_PREFIX)) {
          out.add(name);
        }
      }
    }
    return out;
  }

  /** The processes in namespace {@code ns}. */
  public static List<Long> pids(String ns) {
    Shell.Result r = Shell.exec("ip", "netns", "pids", ns);
    List<Long> out = new ArrayList<>();
    if (r.ok()) {
      for (String l : Shell.lines(r.out())) {
        out.add(Long.parseLong(l));
      }
    }
    return out;
  }

  /** Processes of this machine whose environment carries {@link #MARK}, except this one. */
  public static List<Long> markedProcesses() {
    List<Long> out = new ArrayList<>();
    long self = ProcessHandle.current().pid();
    byte[] needle = ("\0" + MARK + "=").getBytes(StandardCharsets.US_ASCII);
    try (DirectoryStream<Path> proc = Files.newDirectoryStream(Path.of("/proc"), "[0-9]*")) {
      for (Path p : proc) {
        long pid = Long.parseLong(p.getFileName().toString());
        if (pid != self && marked(p.resolve("environ"), needle)) {
          out.add(pid);
        }
      }
    } catch (IOException e) {
      throw new IllegalStateException("cannot list /proc", e);
    }
    return out;
  }

  private static boolean marked(Path environ, byte[] needle) {
    byte[] env;
    try {
      env = Files.readAllBytes(environ);
    } catch (IOException e) {
      return false; // gone meanwhile, or a kernel thread
    }
    // the first variable has no NUL before it
    byte[] first = java.util.Arrays.copyOfRange(needle, 1, needle.length);
    if (startsWith(env, 0, first)) {
      return true;
    }
    for (int i = 0; i + needle.length <= env.length; i++) {
      if (env[i] == 0 && startsWith(env, i, needle)) {
        return true;
      }
    }
    return false;
  }

  private static boolean startsWith(byte[] a, int at, byte[] b) {
    if (at + b.length > a.length) {
      return false;
    }
    for (int i = 0; i < b.length; i++) {
      if (a[at + i] != b[i]) {
        return false;
      }
    }
    return true;
  }

  /**
   * Kills the given processes: SIGTERM, up to {@code graceMillis} to exit, then SIGKILL, and waits
   * until they are gone. {@code again} lists processes that may have been started meanwhile (a
   * NodeManager launching a container); they are killed the same way.
   */
  public static void kill(java.util.function.Supplier<List<Long>> again, long graceMillis) {
    Set<Long> signalled = new LinkedHashSet<>();
    long deadline = System.currentTimeMillis() + graceMillis;
    Set<Long> seen = new LinkedHashSet<>();
    while (true) {
      List<Long> now = again.get();
      if (now.isEmpty()) {
        awaitReaped(seen);
        return;
      }
      seen.addAll(now);
      boolean late = System.currentTimeMillis() >= deadline;
      for (long pid : now) {
        Optional<ProcessHandle> h = ProcessHandle.of(pid);
        if (h.isEmpty()) {
          continue;
        }
        if (late) {
          h.get().destroyForcibly();
        } else if (signalled.add(pid)) {
          h.get().destroy();
        }
      }
      if (late && System.currentTimeMillis() > deadline + 30_000) {
        throw new IllegalStateException("processes " + now + " survive SIGKILL for 30 s");
      }
      sleep(100);
    }
  }

  /**
   * Waits until killed processes are reaped: a killed child of this JVM stays a zombie (alive to
   * {@link ProcessHandle}) until the JVM's reaper collects it.
   */
  private static void awaitReaped(Set<Long> pids) {
    long deadline = System.currentTimeMillis() + 10_000;
    for (long pid : pids) {
      while (ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false)
          && System.currentTimeMillis() < deadline) {
        sleep(20);
      }
    }
  }

  /** Every process of every harness namespace, and every marked process. */
  private static List<Long> everyProcess() {
    Set<Long> all = new LinkedHashSet<>();
    for (String ns : namespaces()) {
      all.addAll(pids(ns));
    }
    all.addAll(markedProcesses());
    return new ArrayList<>(all);
  }

  /** Removes everything of the harness: processes, namespaces, links, /etc/netns entries. */
  public static void all() {
    List<RuntimeException> errors = new ArrayList<>();
    // every host at once: one grace period for the whole cluster, not one per host
    run(errors, () -> kill(Teardown::everyProcess, GRACE_MILLIS));
    for (String ns : namespaces()) {
      run(errors, () -> Shell.run("ip", "netns", "del", ns));
    }
    for (String link : links()) {
      // deleting one end of a veth deletes its peer: the link may be gone already
      Shell.Result r = Shell.exec("ip", "link", "del", link);
      if (!r.ok() && links().contains(link)) {
        errors.add(new IllegalStateException(r.err().strip()));
      }
    }
    run(errors, Teardown::removeEtcNetns);
    if (!errors.isEmpty()) {
      IllegalStateException e =
          new IllegalStateException("tear-down incomplete: " + errors.get(0).getMessage());
      errors.forEach(e::addSuppressed);
      throw e;
    }
  }

  private static void removeEtcNetns() {
    if (!Files.isDirectory(Network.ETC_NETNS)) {
      return;
    }
    try (Stream<Path> dirs = Files.list(Network.ETC_NETNS)) {
      for (Path d :
          dirs.filter(p -> p.getFileName().toString().startsWith(AddressPlan.NAME_PREFIX))
              .toList()) {
        try (Stream<Path> all = Files.walk(d)) {
          for (Path p : all.sorted(Comparator.reverseOrder()).toList()) {
            Files.delete(p);
          }
        }
      }
    } catch (IOException e) {
      throw new IllegalStateException("cannot clean " + Network.ETC_NETNS, e);
    }
  }

  private static void run(List<RuntimeException> errors, Runnable step) {
    try {
      step.run();
    } catch (RuntimeException e) {
      errors.add(e);
    }
  }

  static void sleep(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    }
  }
}
