/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.serve;

import static org.junit.jupiter.api.Assertions.*;

import io.rdmashuffle.config.RdmaConf;
import io.rdmashuffle.fetch.Block;
import io.rdmashuffle.fetch.BlockFetcher;
import io.rdmashuffle.fetch.BlockSource;
import io.rdmashuffle.fetch.FetchOptions;
import io.rdmashuffle.fetch.Owner;
import io.rdmashuffle.fetch.ReadCounters;
import io.rdmashuffle.mapoutput.LocateAnswer.Located;
import io.rdmashuffle.mapoutput.LocateAnswer.Status;
import io.rdmashuffle.mapoutput.LocateRequest;
import io.rdmashuffle.node.NodeRuntime;
import io.rdmashuffle.testing.ConfinedServingProcess;
import io.rdmashuffle.testing.Patterns;
import io.rdmashuffle.testing.TestSchema;
import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A serving process that runs as another user than the owner of the map outputs it serves, as a
 * NodeManager (user {@code yarn}) serves the outputs of a job's user under LinuxContainerExecutor:
 * here root's outputs served by a process running as {@code nobody} (through {@code setpriv}, so
 * the test needs root). An output other users may read (0644) is served, and the bytes READ are the
 * file's: the serving process opens and maps it read-only. One it may not read (0600) is
 * UNAVAILABLE (not the map's fault, never REFUSED), and the answer names the file's mode, its owner
 * and the serving user.
 */
@Timeout(value = 600, unit = TimeUnit.SECONDS)
public abstract class ServedAsAnotherUserContract {
  private static final String APP = "app-other-user";
  private static final String SECRET = "other-user-secret-0123456789";
  private static final String USER = "nobody";
  private static final long[] LENGTHS = {5000, 0, 3 << 20, 123_457, 1};

  @TempDir Path dir;

  protected abstract String transport();

  protected abstract String serverHost();

  protected abstract String clientHost();

  protected abstract long timeoutSeconds();

  private RdmaConf conf() {
    return RdmaConf.of(
        TestSchema.SPARK_KEYS,
        Map.of(
            "spark.shuffle.rdma.transport",
            transport(),
            "spark.shuffle.rdma.read.timeout",
            timeoutSeconds() + "s",
            "spark.shuffle.rdma.connect.timeout",
            3 * timeoutSeconds() + "s",
            "spark.shuffle.rdma.buffers.maxBytes",
            "32m"));
  }

  @Test
  void aReadableOutputOfAnotherUserIsServedAndAnUnreadableOneIsUnavailable() throws Exception {
    Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxr-xr-x"));
    Path root = Files.createDirectory(dir.resolve("outputs"));
    long total = Arrays.stream(LENGTHS).sum();
    Path readable = output(root, 0, total, "rw-r--r--");
    Path unreadable = output(root, 1, total, "rw-------");
    Process child = startAsOtherUser(root);
    try (NodeRuntime client =
        NodeRuntime.start(
            new NodeRuntime.Context().conf(conf()).defaultHost(clientHost()).reading(true))) {
      client.secrets().put(APP, SECRET.getBytes(StandardCharsets.UTF_8));
      int port = awaitReady(child);
      io.rdmashuffle.transport.PeerAddress peer =
          new io.rdmashuffle.transport.PeerAddress(serverHost(), port);

      Located ok = locate(client, peer, "0");
      assertEquals(Status.OK, ok.status(), ok.message());
      byte[] all = Files.readAllBytes(readable);
      Map<Integer, byte[]> got = fetch(client, peer, "0");
      long start = 0;
      for (int p = 0; p < LENGTHS.length; p++) {
        assertArrayEquals(
            Arrays.copyOfRange(all, (int) start, (int) (start + LENGTHS[p])),
            got.getOrDefault(p, new byte[0]),
            "partition " + p);
        start += LENGTHS[p];
      }

      Located denied = locate(client, peer, "1");
      assertEquals(Status.UNAVAILABLE, denied.status(), denied.message());
      String m = denied.message();
      assertTrue(m.contains(unreadable.toString()), m);
      assertTrue(m.contains("rw-------"), m);
      assertTrue(m.contains("owner root"), m);
      assertTrue(m.contains("user " + USER), m);
    } finally {
      child.getOutputStream().close();
      if (!child.waitFor(30, TimeUnit.SECONDS)) {
        child.destroyForcibly();
      }
    }
  }

  /** Map {@code map} of shuffle 1: its data file with {@code mode}, its meta file readable. */
  private static Path output(Path root, int map, long total, String mode) throws IOException {
    Path data = Patterns.file(root.resolve("shuffle_1_" + map + "_0.data"), total, map + 7);
    MetaFiles.commit(data, 1, map, LENGTHS, null, null, true);
    Files.setPosixFilePermissions(
        MetaFiles.pathFor(data), PosixFilePermissions.fromString("rw-r--r--"));
    Files.setPosixFilePermissions(data, PosixFilePermissions.fromString(mode));
    return data;
  }

  private Process startAsOtherUser(Path root) throws IOException {
    String cp = copyClassPath(Files.createDirectory(dir.resolve("cp")));
    List<String> cmd =
        new ArrayList<>(
            List.of(
                "setpriv",
                "--reuid=" + USER,
                "--regid=nogroup",
                "--clear-groups",
                "--",
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx256m",
                "--add-exports",
                "java.base/sun.nio.ch=ALL-UNNAMED",
                "-cp",
                cp,
                ConfinedServingProcess.class.getName(),
                transport(),
                serverHost(),
                APP,
                SECRET,
                root.toString(),
                "spark.shuffle.rdma.read.timeout=" + timeoutSeconds() + "s",
                "spark.shuffle.rdma.connect.timeout=" + 3 * timeoutSeconds() + "s"));
    ProcessBuilder pb = new ProcessBuilder(cmd);
    pb.redirectErrorStream(true);
    return pb.start();
  }

  /** The test's class path, copied where the other user can read it (not below root's home). */
  private static String copyClassPath(Path into) throws IOException {
    String cp = System.getProperty("rdma.test.classpath", System.getProperty("java.class.path"));
    List<String> out = new ArrayList<>();
    int i = 0;
    for (String entry : cp.split(File.pathSeparator)) {
      Path from = Path.of(entry);
      if (!Files.exists(from)) {
        continue;
      }
      Path to = into.resolve(i++ + "-" + from.getFileName());
      if (Files.isDirectory(from)) {
        try (Stream<Path> tree = Files.walk(from)) {
          for (Path p : (Iterable<Path>) tree::iterator) {
            Path q = to.resolve(from.relativize(p).toString());
            if (Files.isDirectory(p)) {
              Files.createDirectories(q);
            } else {
              Files.copy(p, q);
            }
          }
        }
      } else {
        Files.copy(from, to);
      }
      out.add(to.toString());
    }
    try (Stream<Path> tree = Files.walk(into)) {
      for (Path p : (Iterable<Path>) tree::iterator) {
        Files.setPosixFilePermissions(
            p, PosixFilePermissions.fromString(Files.isDirectory(p) ? "rwxr-xr-x" : "rw-r--r--"));
      }
    }
    return String.join(File.pathSeparator, out);
  }

  private static int awaitReady(Process child) throws IOException {
    BufferedReader out =
        new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8));
    StringBuilder log = new StringBuilder();
    String line;
    while ((line = out.readLine()) != null && !line.startsWith("READY")) {
      log.append(line).append('\n');
    }
    assertNotNull(line, "the serving process ended without serving:\n" + log);
    Thread echo =
        new Thread(
            () -> {
              try {
                String l;
                while ((l = out.readLine()) != null) {
                  System.out.println("[serving as " + USER + "] " + l);
                }
              } catch (IOException e) {
                // the child is gone
              }
            });
    echo.setDaemon(true);
    echo.start();
    return Integer.parseInt(line.split(" ")[1]);
  }

  private static Located locate(
      NodeRuntime client, io.rdmashuffle.transport.PeerAddress peer, String map) throws Exception {
    return client
        .locatorClient()
        .locate(peer, APP, new LocateRequest("1", List.of(map), 0, LENGTHS.length, false))
        .get(60, TimeUnit.SECONDS)
        .maps()
        .get(0);
  }

  private static Map<Integer, byte[]> fetch(
      NodeRuntime client, io.rdmashuffle.transport.PeerAddress peer, String map) throws Exception {
    Map<Integer, byte[]> got = new java.util.HashMap<>();
    try (BlockFetcher f =
        new BlockFetcher(
            APP,
            client.locatorClient(),
            null,
            client.connections(),
            client.buffers(),
            new FetchOptions(16 << 20, 8, 4 << 20, false, true, 60_000, 2, 100),
            new ReadCounters(),
            client.fetchDriver(),
            () -> {})) {
      f.add(
          new BlockSource(
              new Owner(peer, false, false), "1", map, new int[] {0, 1, 2, 3, 4}, "map " + map));
      Block b;
      while ((b = f.next()) != null) {
        try (InputStream in = b.stream()) {
          got.put(b.partition(), in.readAllBytes());
        }
      }
    }
    return got;
  }
}
