/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.cluster;

import static org.junit.jupiter.api.Assertions.*;

import io.rdmashuffle.cluster.net.Rate;
import io.rdmashuffle.cluster.net.Shell;
import io.rdmashuffle.cluster.net.Teardown;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The harness leaves nothing behind: not after {@link Cluster#close}, not when its JVM gets SIGTERM
 * (the shutdown hook), and what a crashed run left is removed at the next start. It refuses to
 * start without root, saying root is needed. Each test builds its own small cluster.
 */
@Timeout(300)
class ClusterTeardownIT {
  @BeforeAll
  static void root() {
    ClusterTesting.assumeRoot();
  }

  @Test
  void closeRemovesProcessesNamespacesLinksAndEtcEntries() {
    Cluster c =
        Cluster.start(
            ClusterSpec.builder("teardown-it").hosts(2).rate(Rate.parse("100mbit")).build(),
            ClusterTesting.paths());
    List<Long> pids = new ArrayList<>();
    try {
      for (Host h : c.hosts()) {
        pids.add(
            h.start(new ProcessSpec("sleeper", List.of("sleep", "600"), Map.of(), h.log("sleeper")))
                .pid());
      }
      pids.add(
          c.edge()
              .start(
                  new ProcessSpec(
                      "client-sleeper",
                      List.of("sleep", "600"),
                      Map.of(),
                      c.work().resolve("logs/client/sleeper.log")))
              .pid());
      assertEquals(List.of("rs-h1", "rs-h2"), Teardown.namespaces().stream().sorted().toList());
      assertTrue(Teardown.links().contains("rs-br0"), Teardown.links().toString());
    } finally {
      c.close();
    }
    assertNothingLeft();
    for (long pid : pids) {
      assertFalse(
          ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false),
          "process " + pid + " survived the tear-down");
    }
    c.close(); // idempotent
  }

  @Test
  void leftoversOfACrashedRunAreRemovedAtTheNextStart() throws Exception {
    Shell.run("ip", "netns", "add", "rs-h7");
    Shell.run("ip", "link", "add", "rs-h7-br", "type", "veth", "peer", "name", "rs-h7-x");
    ProcessBuilder pb = new ProcessBuilder("sleep", "600");
    pb.environment().put(Teardown.MARK, "crashed");
    Process orphan = pb.start();
    Cluster c =
        Cluster.start(ClusterSpec.builder("leftovers-it").hosts(1).build(), ClusterTesting.paths());
    try {
      assertEquals(List.of("rs-h1"), Teardown.namespaces());
      assertFalse(Teardown.links().contains("rs-h7-br"), Teardown.links().toString());
      assertTrue(orphan.waitFor(10, TimeUnit.SECONDS), "the marked process survived");
    } finally {
      c.close();
      orphan.destroyForcibly();
    }
    assertNothingLeft();
  }

  @Test
  void aJvmEndedBySigtermTearsItsClusterDown() throws Exception {
    Process child = child(List.of());
    List<String> out = new ArrayList<>();
    try (BufferedReader r =
        new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8))) {
      String line;
      while ((line = r.readLine()) != null && !line.equals("UP")) {
        out.add(line);
        assertFalse(line.startsWith("FAILED"), line);
      }
      assertNotNull(line, "the child ended before its cluster was up: " + out);
      assertEquals(2, Teardown.namespaces().size());
      assertFalse(Teardown.markedProcesses().isEmpty());
      child.destroy(); // SIGTERM, as Maven or a terminal ends a test JVM
      assertTrue(child.waitFor(60, TimeUnit.SECONDS), "the child did not end");
    } finally {
      child.destroyForcibly();
    }
    assertNothingLeft();
  }

  @Test
  void withoutRootItRefusesAndSaysRootIsNeeded() throws Exception {
    Process child = child(List.of("setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"));
    String out = new String(child.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertTrue(child.waitFor(60, TimeUnit.SECONDS));
    assertEquals(3, child.exitValue(), out);
    assertTrue(out.contains("needs root") && out.contains("network namespaces"), out);
    assertEquals(List.of(), Teardown.namespaces());
  }

  /** A JVM running {@link ClusterChild} with this JVM's class path and cluster settings. */
  private static Process child(List<String> prefix) throws IOException {
    List<String> cmd = new ArrayList<>(prefix);
    // another user can't read root's Maven repository: the child gets what it needs for the
    // start (the module's classes), and, as root, the rest
    String cp =
        prefix.isEmpty()
            ? System.getProperty("java.class.path")
            : String.join(
                java.io.File.pathSeparator,
                Stream.of(System.getProperty("java.class.path").split(java.io.File.pathSeparator))
                    .filter(e -> !e.startsWith("/root/"))
                    .toList());
    cmd.addAll(List.of(Launcher.java(), "-Xmx128m", "-cp", cp));
    System.getProperties().stringPropertyNames().stream()
        .filter(k -> k.startsWith("cluster."))
        .forEach(k -> cmd.add("-D" + k + "=" + System.getProperty(k)));
    cmd.add(ClusterChild.class.getName());
    return new ProcessBuilder(cmd).redirectErrorStream(true).start();
  }

  private static void assertNothingLeft() {
    assertEquals(List.of(), Teardown.namespaces(), "namespaces left");
    assertEquals(List.of(), Teardown.links(), "links left");
    assertEquals(List.of(), Teardown.markedProcesses(), "processes left");
    try (Stream<Path> etc =
        Files.exists(Path.of("/etc/netns")) ? Files.list(Path.of("/etc/netns")) : Stream.empty()) {
      assertEquals(
          List.of(),
          etc.filter(p -> p.getFileName().toString().startsWith("rs-")).toList(),
          "/etc/netns entries left");
    } catch (IOException e) {
      throw new AssertionError(e);
    }
    assertFalse(Files.exists(Path.of("/run/rdma-shuffle-cluster.owner")), "owner file left");
  }
}
