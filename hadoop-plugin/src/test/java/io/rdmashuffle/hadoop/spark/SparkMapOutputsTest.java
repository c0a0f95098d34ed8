/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.hadoop.spark;

import static org.junit.jupiter.api.Assertions.*;

import io.rdmashuffle.config.RdmaConf;
import io.rdmashuffle.mapoutput.ChecksumAlgorithm;
import io.rdmashuffle.mapoutput.LocateAnswer;
import io.rdmashuffle.mapoutput.LocateRequest;
import io.rdmashuffle.mapoutput.OutputId;
import io.rdmashuffle.mapoutput.ReleaseRequest;
import io.rdmashuffle.node.NodeRuntime;
import io.rdmashuffle.serve.MetaFiles;
import io.rdmashuffle.serve.OpenedOutput;
import io.rdmashuffle.serve.RefusedException;
import io.rdmashuffle.spark.SparkTransportSecret;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.List;
import java.util.Map;
import org.apache.spark.network.shuffle.ExecutorDiskUtils;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Finding Spark map outputs in registered executors' local dirs, without YARN. */
class SparkMapOutputsTest {
  static final String APP = "application_1700000000000_0001";
  static final String OTHER = "application_1700000000000_0002";
  static final String USER = "alice";
  static final int SUB_DIRS = 8;

  @TempDir Path tmp;
  Path nmLocal;
  SparkExecutors executors;

  @BeforeEach
  void setUp() throws IOException {
    nmLocal = Files.createDirectories(tmp.resolve("nm-local"));
    executors = new SparkExecutors(List.of(nmLocal), new SparkServiceState(tmp));
    executors.addApplication(new SparkExecutors.Application(APP, USER, null));
    executors.addApplication(new SparkExecutors.Application(OTHER, "bob", "s3cret"));
  }

  /** An executor's block manager dir of {@code app}, registered. */
  String[] executor(String app, String user, String id) throws IOException {
    Path dir =
        Files.createDirectories(
            nmLocal.resolve("usercache/" + user + "/appcache/" + app + "/blockmgr-" + id));
    String[] dirs = {dir.toString()};
    executors.register(app, id, dirs, SUB_DIRS);
    return dirs;
  }

  /** A committed map output where Spark puts it, with its meta file. */
  static Path commit(String[] dirs, int shuffle, long map, long[] lengths) throws IOException {
    Path data =
        Path.of(
            ExecutorDiskUtils.getFilePath(
                dirs, SUB_DIRS, "shuffle_" + shuffle + "_" + map + "_0.data"));
    Files.createDirectories(data.getParent());
    long total = 0;
    for (long l : lengths) {
      total += l;
    }
    byte[] bytes = new byte[(int) total];
    for (int i = 0; i < bytes.length; i++) {
      bytes[i] = (byte) (i * 7);
    }
    Files.write(data, bytes);
    MetaFiles.commit(data, shuffle, map, lengths, ChecksumAlgorithm.NONE, null, true);
    return data;
  }

  @Test
  void findsAnOutputInTheExecutorThatWroteItAmongSeveral() throws IOException {
    executor(APP, USER, "1");
    String[] second = executor(APP, USER, "2");
    Path data = commit(second, 3, 42, new long[] {10, 0, 25});
    try (OpenedOutput o = new SparkMapOutputs(executors, false).open(OutputId.spark(APP, 3, 42))) {
      assertEquals(data, o.path());
      assertEquals(35, o.channel().size());
      assertEquals(3, o.table().end());
      assertEquals(10, o.table().start(2));
      assertEquals(25, o.table().length(2));
      assertEquals(ChecksumAlgorithm.CRC32C, o.table().algorithm());
    }
  }

  @Test
  void anotherApplicationsOutputIsNotFound() throws IOException {
    String[] theirs = executor(OTHER, "bob", "1");
    commit(theirs, 0, 5, new long[] {8});
    executor(APP, USER, "1");
    SparkMapOutputs source = new SparkMapOutputs(executors, false);
    assertThrows(NoSuchFileException.class, () -> source.open(OutputId.spark(APP, 0, 5)));
    assertThrows(
        NoSuchFileException.class, () -> source.open(OutputId.spark("application_1_9", 0, 5)));
    source.open(OutputId.spark(OTHER, 0, 5)).close();
  }

  @Test
  void anExecutorOutsideItsApplicationsFoldersIsRefused() throws IOException {
    Path elsewhere = Files.createDirectories(tmp.resolve("elsewhere/blockmgr-1"));
    Path otherApp =
        Files.createDirectories(nmLocal.resolve("usercache/bob/appcache/" + OTHER + "/blockmgr-1"));
    Path otherUser =
        Files.createDirectories(
            nmLocal.resolve("usercache/mallory/appcache/" + APP + "/blockmgr-1"));
    for (Path p : List.of(elsewhere, otherApp, otherUser, nmLocal)) {
      IllegalArgumentException e =
          assertThrows(
              IllegalArgumentException.class,
              () -> executors.register(APP, "9", new String[] {p.toString()}, SUB_DIRS),
              p::toString);
      assertTrue(e.getMessage().contains("executor 9 of " + APP), e.getMessage());
    }
    String dotted = nmLocal + "/usercache/" + USER + "/appcache/" + APP + "/../../../x/y/z";
    assertThrows(
        IllegalArgumentException.class,
        () -> executors.register(APP, "9", new String[] {dotted}, SUB_DIRS));
    assertTrue(executors.executorsOf(APP).isEmpty());
  }

  @Test
  void aLinkOnTheWayIsRefusedNotFollowed() throws IOException {
    String[] dirs = executor(APP, USER, "1");
    Path data = commit(dirs, 1, 7, new long[] {4, 4});
    // the sub-dir replaced by a link to a copy: same bytes, but not below the checked path
    Path sub = data.getParent();
    Path copy = Files.createDirectories(tmp.resolve("copy"));
    Files.move(sub, copy.resolve("sub"));
    Files.createSymbolicLink(sub, copy.resolve("sub"));
    assertThrows(
        RefusedException.class,
        () -> new SparkMapOutputs(executors, false).open(OutputId.spark(APP, 1, 7)));
  }

  @Test
  void filesMustBelongToTheApplicationsUserWhenOwnersAreChecked() throws IOException {
    String[] dirs = executor(APP, USER, "1");
    commit(dirs, 1, 7, new long[] {4});
    // the test runs as some user that is not "alice"
    RefusedException e =
        assertThrows(
            RefusedException.class,
            () -> new SparkMapOutputs(executors, true).open(OutputId.spark(APP, 1, 7)));
    assertTrue(e.getMessage().contains("not " + USER), e.getMessage());
  }

  @Test
  void anExecutorOfAnApplicationNotStartedHereIsRefused() throws IOException {
    // the user of its folder can't be checked against an application the NodeManager never named
    String unknown = "application_1700000000000_0009";
    Path dir =
        Files.createDirectories(
            nmLocal.resolve("usercache/mallory/appcache/" + unknown + "/blockmgr-1"));
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () -> executors.register(unknown, "1", new String[] {dir.toString()}, SUB_DIRS));
    assertTrue(e.getMessage().contains("not started on this node"), e.getMessage());
    assertTrue(executors.executorsOf(unknown).isEmpty());
  }

  @Test
  void aRefusedDirectoryOfOneExecutorDoesNotStopTheSearchOverTheOthers() throws IOException {
    String[] first = executor(APP, USER, "1");
    String[] second = executor(APP, USER, "2");
    Path data = commit(second, 1, 7, new long[] {4, 4});
    // the first executor's sub-dir where the output's name hashes to is a link: refused there
    Path sub =
        Path.of(ExecutorDiskUtils.getFilePath(first, SUB_DIRS, data.getFileName().toString()));
    Files.createDirectories(tmp.resolve("elsewhere"));
    Files.createSymbolicLink(sub.getParent(), tmp.resolve("elsewhere"));
    try (OpenedOutput o = new SparkMapOutputs(executors, false).open(OutputId.spark(APP, 1, 7))) {
      assertEquals(data, o.path());
    }
    // where no executor has it, the refusal is what is answered, not "not found"
    long other = 8;
    while (!Path.of(
            ExecutorDiskUtils.getFilePath(first, SUB_DIRS, "shuffle_1_" + other + "_0.data"))
        .getParent()
        .equals(sub.getParent())) {
      other++;
    }
    long missing = other;
    assertThrows(
        RefusedException.class,
        () -> new SparkMapOutputs(executors, false).open(OutputId.spark(APP, 1, missing)));
  }

  @Test
  void theStateFileIsAppendedToNotRewrittenOnEveryRegistration() throws IOException {
    executor(APP, USER, "0");
    Path file = tmp.resolve(SparkServiceState.FILE_NAME);
    Object key = Files.readAttributes(file, BasicFileAttributes.class).fileKey();
    long size = Files.size(file);
    for (int i = 1; i <= 200; i++) {
      executor(APP, USER, Integer.toString(i));
      long now = Files.size(file);
      assertTrue(now > size, "registration " + i + " added nothing");
      // one record per registration: far less than the whole state
      assertTrue(now - size < 400, "registration " + i + " wrote " + (now - size) + " bytes");
      size = now;
    }
    assertEquals(key, Files.readAttributes(file, BasicFileAttributes.class).fileKey());
    SparkExecutors restarted = new SparkExecutors(List.of(nmLocal), new SparkServiceState(tmp));
    restarted.recover();
    assertEquals(201, restarted.executorsOf(APP).size());
    // an application's end is one record too, and what ended is not recovered
    restarted.removeApplication(APP);
    SparkExecutors again = new SparkExecutors(List.of(nmLocal), new SparkServiceState(tmp));
    again.recover();
    assertTrue(again.executorsOf(APP).isEmpty());
    assertNull(again.application(APP));
    assertNotNull(again.application(OTHER));
  }

  @Test
  void anOutputWithoutMetaFileIsDamagedNotMissing() throws IOException {
    String[] dirs = executor(APP, USER, "1");
    Path data = commit(dirs, 2, 3, new long[] {4});
    Files.delete(MetaFiles.pathFor(data));
    IOException e =
        assertThrows(
            IOException.class,
            () -> new SparkMapOutputs(executors, false).open(OutputId.spark(APP, 2, 3)));
    assertFalse(e instanceof NoSuchFileException, e.toString());
    assertTrue(e.getMessage().contains("no meta file"), e.getMessage());
  }

  @Test
  void registrationsAndApplicationsSurviveARestartUntilTheApplicationEnds() throws IOException {
    String[] dirs = executor(APP, USER, "1");
    executor(OTHER, "bob", "4");
    commit(dirs, 0, 1, new long[] {3, 3});

    SparkExecutors restarted = new SparkExecutors(List.of(nmLocal), new SparkServiceState(tmp));
    List<SparkExecutors.Application> apps = restarted.recover();
    assertEquals(
        List.of(
            new SparkExecutors.Application(APP, USER, null),
            new SparkExecutors.Application(OTHER, "bob", "s3cret")),
        apps);
    assertEquals(2, restarted.size());
    new SparkMapOutputs(restarted, false).open(OutputId.spark(APP, 0, 1)).close();

    restarted.removeApplication(APP);
    SparkExecutors again = new SparkExecutors(List.of(nmLocal), new SparkServiceState(tmp));
    assertEquals(1, again.recover().size());
    assertTrue(again.executorsOf(APP).isEmpty());
    assertEquals(1, again.executorsOf(OTHER).size());
    assertEquals(
        "rw-------",
        java.nio.file.attribute.PosixFilePermissions.toString(
            Files.getPosixFilePermissions(tmp.resolve(SparkServiceState.FILE_NAME))));
  }

  @Test
  void theNodesLocateServiceAnswersForAdmittedApplicationsOnly() throws Exception {
    String[] dirs = executor(APP, USER, "1");
    commit(dirs, 5, 11, new long[] {100, 200, 300});
    commit(dirs, 5, 12, new long[] {1, 2, 3});
    RdmaConf conf =
        RdmaConf.of(
            SparkServiceConfig.SCHEMA,
            Map.of(
                "spark.shuffle.rdma.transport",
                "tcp",
                "spark.shuffle.rdma.serve.maxOpenOutputs",
                "1"));
    try (NodeRuntime node =
        NodeRuntime.start(
            new NodeRuntime.Context()
                .conf(conf)
                .defaultHost("127.0.0.1")
                .serving(new SparkMapOutputs(executors, false)))) {
      LocateRequest request = new LocateRequest("5", List.of("11", "12", "13"), 1, 3, false);
      LocateAnswer before = node.locator().answer(APP, request);
      before.maps().forEach(m -> assertEquals(LocateAnswer.Status.REFUSED, m.status()));

      node.catalog().admit(APP, SparkTransportSecret.derive(APP, null));
      LocateAnswer a = node.locator().answer(APP, request);
      assertEquals(LocateAnswer.Status.OK, a.maps().get(0).status(), a.toString());
      assertEquals(200, a.maps().get(0).partitions().length(1));
      assertEquals(300, a.maps().get(0).partitions().length(2));
      // one output registered at a time, and that one leased to the reader that asked: the
      // second is not registered by evicting it, but answered busy (ask again, nobody's fault)
      assertEquals(LocateAnswer.Status.BUSY, a.maps().get(1).status(), a.toString());
      assertEquals(LocateAnswer.Status.NOT_FOUND, a.maps().get(2).status());
      assertEquals(1, node.catalog().registeredOutputs());
      assertEquals(0, node.catalog().metrics().evictions());
      node.catalog().release(APP, new ReleaseRequest(request.reader() + 1, "5", List.of("11")));
      assertEquals(
          LocateAnswer.Status.BUSY,
          node.locator().answer(APP, request).maps().get(1).status(),
          "another reader's release ends nothing");

      node.catalog().withdraw(APP);
      assertEquals(0, node.catalog().registeredOutputs());
    }
  }
}
