/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.cluster;

import static io.rdmashuffle.cluster.ClusterTesting.connect;
import static org.junit.jupiter.api.Assertions.*;

import io.rdmashuffle.cluster.net.Rate;
import io.rdmashuffle.cluster.net.Shell;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The harness's hosts and fault hooks on a cluster of three bare hosts (no engine): each host has
 * its own address, name and /etc/hosts; a link taken down makes its host unreachable from another
 * and up restores it; tbf limits a link's rate; killing a host leaves none of its processes; a
 * restarted daemon serves again; a second cluster is refused while one runs.
 */
@Timeout(300)
class ClusterHarnessIT {
  static final int PORT = 7200;
  static Cluster cluster;

  @BeforeAll
  static void start() {
    ClusterTesting.assumeRoot();
    cluster =
        Cluster.start(ClusterSpec.builder("harness-it").hosts(3).build(), ClusterTesting.paths());
  }

  @AfterAll
  static void stop() {
    if (cluster != null) {
      cluster.close();
    }
  }

  @Test
  void everyHostHasItsOwnNameAddressAndHostsFile() {
    for (Host h : cluster.hosts()) {
      assertEquals(h.name(), Shell.lines(h.exec(List.of("hostname"), 30).check().out()).get(0));
      assertTrue(
          h.exec(List.of("ip", "-4", "-o", "addr", "show", "dev", "eth0"), 30)
              .check()
              .out()
              .contains(" " + h.address() + "/24 "),
          h.name());
      for (Host other : cluster.hosts()) {
        assertTrue(
            h.exec(List.of("getent", "hosts", other.name()), 30)
                .check()
                .out()
                .startsWith(other.address() + " "),
            h.name() + " resolves " + other.name());
      }
    }
    assertTrue(
        cluster
            .edge()
            .exec(List.of("getent", "hosts", "rs-h2"), 30)
            .check()
            .out()
            .startsWith(cluster.host(2).address() + " "),
        "the client resolves the hosts");
  }

  @Test
  void aLinkDownMakesItsHostUnreachableAndUpRestoresIt() {
    Daemon sink = ClusterTesting.startSink(cluster.host(1), PORT);
    try {
      awaitConnect(cluster.host(2), cluster.host(1).address());
      cluster.linkDown(1);
      assertFalse(cluster.network().linkUp(1));
      assertEquals(
          124,
          connect(cluster.host(2), cluster.host(1).address(), PORT),
          "rs-h1 is reachable from rs-h2 with its link down");
      assertEquals(
          124,
          connect(cluster.edge(), cluster.host(1).address(), PORT),
          "rs-h1 is reachable from the client with its link down");
      assertNotEquals(
          124,
          connect(cluster.host(2), cluster.host(3).address(), PORT),
          "rs-h3 became unreachable from rs-h2 when rs-h1's link went down");
      cluster.linkUp(1);
      assertTrue(cluster.network().linkUp(1));
      awaitConnect(cluster.host(2), cluster.host(1).address());
      assertTrue(sink.alive(), "a link fault kills no process");
    } finally {
      cluster.linkUp(1);
      sink.stop(1_000);
    }
  }

  @Test
  void tbfLimitsAHostsLinkInBothDirections() {
    Daemon sink = ClusterTesting.startSink(cluster.host(3), PORT + 1);
    try {
      awaitConnect(cluster.host(2), cluster.host(3).address(), PORT + 1);
      double free = send(cluster.host(2), cluster.host(3).address(), PORT + 1);
      cluster.network().rate(3, Rate.parse("16mbit"));
      assertTrue(cluster.network().qdiscs(3).contains("tbf"), cluster.network().qdiscs(3));
      // the sender is done when all but its socket buffer (4 MiB at most) crossed the link: at
      // 16 Mbit/s (2 MB/s) that takes 2 s at least; unlimited, a veth carries 8 MB in milliseconds
      double limited = send(cluster.host(2), cluster.host(3).address(), PORT + 1);
      assertTrue(limited >= 1.5, "8 MB crossed a 16mbit link in " + limited + " s");
      cluster.network().rate(3, null);
      assertFalse(cluster.network().qdiscs(3).contains("tbf"), cluster.network().qdiscs(3));
      System.out.printf("8 MB to rs-h3: %.2f s free, %.2f s at 16mbit%n", free, limited);
    } finally {
      cluster.network().rate(3, null);
      sink.stop(1_000);
    }
  }

  /** Seconds to send 8 MB from {@code from} to a sink; the command ends when the bytes are sent. */
  private static double send(Place from, String address, int port) {
    long t0 = System.nanoTime();
    Shell.exec(
            from.wrap(
                List.of(
                    "bash", "-c", "head -c 8000000 /dev/zero > /dev/tcp/" + address + "/" + port)),
            60)
        .check();
    return (System.nanoTime() - t0) / 1e9;
  }

  @Test
  void killingAHostLeavesNoneOfItsProcesses() {
    Host h3 = cluster.host(3);
    Daemon sink = ClusterTesting.startSink(h3, PORT + 2);
    Daemon tree =
        h3.start(
            new ProcessSpec(
                "sleepers",
                List.of("sh", "-c", "sleep 600 & sleep 600 & wait"),
                java.util.Map.of(),
                h3.log("sleepers")));
    Daemon other = ClusterTesting.startSink(cluster.host(2), PORT + 2);
    try {
      awaitConnect(cluster.host(1), h3.address(), PORT + 2);
      List<Long> before = h3.pids();
      assertTrue(before.size() >= 4, "rs-h3 runs " + before);
      cluster.killHost(3);
      assertEquals(List.of(), h3.pids());
      for (long pid : before) {
        assertFalse(
            ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false),
            "process " + pid + " of rs-h3 survived");
      }
      assertFalse(sink.alive());
      assertFalse(tree.alive());
      assertTrue(other.alive(), "rs-h2's process died with rs-h3");
      assertEquals(
          1,
          connect(cluster.host(1), h3.address(), PORT + 2),
          "rs-h3 itself stays reachable (its link is up): the port is closed");
    } finally {
      other.stop(1_000);
    }
  }

  @Test
  void aRestartedDaemonRunsAgainWithANewProcess() {
    Daemon sink = ClusterTesting.startSink(cluster.host(2), PORT + 3);
    try {
      awaitConnect(cluster.host(1), cluster.host(2).address(), PORT + 3);
      long pid = sink.pid();
      sink.restart(2_000);
      assertNotEquals(pid, sink.pid());
      assertFalse(ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false));
      awaitConnect(cluster.host(1), cluster.host(2).address(), PORT + 3);
    } finally {
      sink.stop(1_000);
    }
  }

  @Test
  void aSecondClusterIsRefusedWhileOneRuns() {
    IllegalStateException e =
        assertThrows(
            IllegalStateException.class,
            () ->
                Cluster.start(
                    ClusterSpec.builder("second").hosts(1).build(), ClusterTesting.paths()));
    assertTrue(e.getMessage().contains("a harness cluster is running"), e.getMessage());
    assertEquals(
        3,
        io.rdmashuffle.cluster.net.Teardown.namespaces().size(),
        "the refused start touched the running cluster");
  }

  private static void awaitConnect(Place from, String address) {
    awaitConnect(from, address, PORT);
  }

  private static void awaitConnect(Place from, String address, int port) {
    long deadline = System.nanoTime() + 60_000_000_000L;
    int code;
    while ((code = connect(from, address, port)) != 0) {
      assertTrue(
          System.nanoTime() < deadline,
          from.name() + " can't connect to " + address + ":" + port + " (last exit " + code + ")");
      pause();
    }
  }

  private static void pause() {
    try {
      Thread.sleep(200);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }
}
