/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package org.apache.spark.shuffle.rdma;

import static org.junit.jupiter.api.Assertions.*;

import io.rdmashuffle.config.RdmaConf;
import io.rdmashuffle.mapoutput.OwnerMarker;
import io.rdmashuffle.serve.MetaFiles;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.apache.spark.SparkConf;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * An executor with Spark's external shuffle service on: its map statuses name the NodeManager's
 * rdma-shuffle Spark service on its host as owner, it does not register its outputs itself, and
 * their meta files outlive it (the service serves them after the executor is gone). Without the
 * service nothing changes.
 */
@Timeout(60)
class NodeServiceOwnerTest {
  private static final byte[] SECRET =
      "node-service-owner-secret-0123456".getBytes(StandardCharsets.UTF_8);

  @TempDir Path dir;

  private Path dataFile(String name) throws Exception {
    Path data = dir.resolve(name);
    Files.write(data, new byte[1000]);
    return data;
  }

  @Test
  void withTheNodeServiceTheMarkerNamesItAndMetaFilesOutliveTheExecutor() throws Exception {
    RdmaConf conf =
        RdmaConf.of(
            SparkConfig.SCHEMA,
            Map.of(
                "spark.shuffle.rdma.transport",
                "tcp",
                "spark.shuffle.rdma.nodeService.port",
                "17340"));
    Path data = dataFile("shuffle_1_1_0.data");
    SparkNode node = SparkNode.start(conf, "app-ns", SECRET, "127.0.0.1", true);
    OwnerMarker marker;
    try {
      marker = node.marker();
      assertEquals(17340, marker.address().port());
      assertEquals(node.runtime().transport().localAddress().host(), marker.address().host());
      assertEquals(node.runtime().transport().kind(), marker.transport());
      assertNotEquals(node.runtime().transport().localAddress(), marker.address());
      // a reader in this executor reads its own outputs through the node service too
      var owner = ReadSources.ownerOf(marker, node.runtime().transport().localAddress());
      assertFalse(owner.thisProcess(), "the node service is another process");
      assertTrue(owner.sameHost());
      node.publish(1, 1, data, new long[] {400, 600}, null, null);
      assertTrue(Files.exists(MetaFiles.pathFor(data)));
      assertEquals(
          0,
          node.runtime().catalog().registeredOutputs(),
          "the node service serves it: nothing registered in the executor");
    } finally {
      node.close();
    }
    assertTrue(Files.exists(MetaFiles.pathFor(data)), "the meta file went with the executor");
    assertEquals(marker, OwnerMarker.parse(marker.toText()));
  }

  @Test
  void theExternalShuffleServiceIsAcceptedOnYarnOnly() {
    SparkConf yarn =
        new SparkConf().set("spark.master", "yarn").set("spark.shuffle.service.enabled", "true");
    new RdmaShuffleManager(yarn, false).stop();
    SparkConf standalone =
        new SparkConf()
            .set("spark.master", "spark://127.0.0.1:7077")
            .set("spark.shuffle.service.enabled", "true");
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class, () -> new RdmaShuffleManager(standalone, false));
    assertTrue(e.getMessage().contains("only on YARN"), e.getMessage());
  }

  @Test
  void withoutItTheExecutorOwnsAndWithdrawsItsOutputs() throws Exception {
    RdmaConf conf = RdmaConf.of(SparkConfig.SCHEMA, Map.of("spark.shuffle.rdma.transport", "tcp"));
    Path data = dataFile("shuffle_2_1_0.data");
    SparkNode node = SparkNode.start(conf, "app-own", SECRET, "127.0.0.1", false);
    try {
      assertEquals(node.runtime().transport().localAddress(), node.marker().address());
      assertTrue(
          ReadSources.ownerOf(node.marker(), node.runtime().transport().localAddress())
              .thisProcess());
      node.publish(2, 1, data, new long[] {1000}, null, null);
      assertEquals(1, node.runtime().catalog().registeredOutputs());
    } finally {
      node.close();
    }
    assertFalse(Files.exists(MetaFiles.pathFor(data)));
  }
}
