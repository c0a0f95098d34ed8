/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.hadoop.reduce;

import static org.junit.jupiter.api.Assertions.*;

import com.sun.net.httpserver.HttpServer;
import io.rdmashuffle.hadoop.MapOutputsRequest;
import io.rdmashuffle.hadoop.service.RdmaShuffleHandler;
import io.rdmashuffle.hadoop.testing.FakeMapOutputs;
import io.rdmashuffle.hadoop.testing.JobTokens;
import io.rdmashuffle.hadoop.testing.LocalDirs;
import io.rdmashuffle.mapoutput.LocateAnswer;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import javax.crypto.SecretKey;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.mapred.JobConf;
import org.apache.hadoop.mapred.ShuffleHandler;
import org.apache.hadoop.mapreduce.JobID;
import org.apache.hadoop.mapreduce.TaskAttemptID;
import org.apache.hadoop.mapreduce.security.token.JobTokenIdentifier;
import org.apache.hadoop.mapreduce.security.token.JobTokenSecretManager;
import org.apache.hadoop.mapreduce.task.reduce.MapHost;
import org.apache.hadoop.metrics2.lib.DefaultMetricsSystem;
import org.apache.hadoop.security.token.Token;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** How a reduce task tells a usable node from one it must fetch from over HTTP. */
@Timeout(120)
class MapOutputsClientTest {
  private static final JobID JOB = FakeMapOutputs.job(3);
  private final Token<JobTokenIdentifier> token = JobTokens.token(JOB);
  @TempDir Path tmp;

  @BeforeAll
  static void metrics() {
    DefaultMetricsSystem.setMiniClusterMode(true);
  }

  private ShuffleHandler start(ShuffleHandler s) throws Exception {
    Configuration conf = new Configuration();
    conf.setInt(ShuffleHandler.SHUFFLE_PORT_CONFIG_KEY, 0);
    s.setAuxiliaryLocalPathHandler(
        new LocalDirs(List.of(Files.createDirectories(tmp.resolve("d")))));
    s.init(conf);
    s.start();
    s.initializeApplication(JobTokens.init(JOB, "carol", token));
    return s;
  }

  private static MapHost host(int port) {
    return new MapHost(
        "localhost:" + port,
        "http://localhost:" + port + "/mapOutput?job=" + JOB + "&reduce=0&map=");
  }

  private MapOutputsClient client(SecretKey key) {
    return new MapOutputsClient(new JobConf(), JOB.toString(), 0, key);
  }

  @Test
  void ourServiceAnswersAndTheStockHandlerIsRecognized() throws Exception {
    TaskAttemptID m = FakeMapOutputs.map(JOB, 0);
    ShuffleHandler ours = start(new RdmaShuffleHandler());
    try {
      FakeMapOutputs.write(tmp.resolve("d"), JOB, "carol", m, 1, 100);
      LocateAnswer a =
          client(JobTokens.secret(token))
              .request(host(ShuffleHandler.deserializeMetaData(ours.getMetaData())), List.of(m));
      assertEquals(LocateAnswer.Status.OK, a.maps().get(0).status());
      NodeLocator.Unusable bad =
          assertThrows(
              NodeLocator.Unusable.class,
              () ->
                  client(JobTokenSecretManager.createSecretKey(new byte[8]))
                      .request(
                          host(ShuffleHandler.deserializeMetaData(ours.getMetaData())),
                          List.of(m)));
      assertTrue(bad.getMessage().contains("401"), bad.getMessage());
    } finally {
      ours.stop();
    }
    ShuffleHandler stock = start(new ShuffleHandler());
    try {
      NodeLocator.Unusable e =
          assertThrows(
              NodeLocator.Unusable.class,
              () ->
                  client(JobTokens.secret(token))
                      .request(
                          host(ShuffleHandler.deserializeMetaData(stock.getMetaData())),
                          List.of(m)));
      assertTrue(e.getMessage().contains("stock ShuffleHandler"), e.getMessage());
    } finally {
      stock.stop();
    }
  }

  @Test
  void anAnswerWhoseReplyHashDoesNotProveTheSecretIsNotTrusted() throws Exception {
    HttpServer fake = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    fake.createContext(
        MapOutputsRequest.PATH,
        x -> {
          x.getResponseHeaders().add("ReplyHash", "bm90IGEgcHJvb2Y=");
          x.getResponseHeaders().add("Content-Type", MapOutputsRequest.CONTENT_TYPE);
          x.sendResponseHeaders(200, 4);
          x.getResponseBody().write(new byte[] {1, 2, 3, 4});
          x.close();
        });
    fake.start();
    try {
      NodeLocator.Unusable e = assertThrows(NodeLocator.Unusable.class, () -> request(fake));
      assertTrue(e.getMessage().contains("Verification of the hashReply failed"), e.getMessage());
    } finally {
      fake.stop(0);
    }
  }

  @Test
  void aBusyNodeSaysTryLaterWithItsBackoffNotUnusable() throws Exception {
    HttpServer busy = answering(429, "1234");
    try {
      NodeLocator.TryLater later = assertThrows(NodeLocator.TryLater.class, () -> request(busy));
      assertEquals(1234, later.backoffMillis());
    } finally {
      busy.stop(0);
    }
  }

  /**
   * 503 with Retry-After is what our service answers while it starts or stops (a NodeManager
   * restarting): a node away for now, which Hadoop's fetch retry waits for; 503 without it is a
   * node that serves no READs (its maps go over HTTP).
   */
  @Test
  void aServiceStartingOrStoppingIsAwayForNowAndOneWithoutReadsIsUnusable() throws Exception {
    for (String retryAfter : new String[] {"1000", null}) {
      HttpServer away = answering(503, retryAfter);
      try {
        NodeLocator.Unusable e = assertThrows(NodeLocator.Unusable.class, () -> request(away));
        assertEquals(retryAfter != null, e.unreachable(), e.getMessage());
      } finally {
        away.stop(0);
      }
    }
  }

  /** A node whose locate path answers {@code status}, with {@code Retry-After} unless null. */
  private static HttpServer answering(int status, String retryAfter) throws IOException {
    HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    server.createContext(
        MapOutputsRequest.PATH,
        x -> {
          if (retryAfter != null) {
            x.getResponseHeaders().add("Retry-After", retryAfter);
          }
          x.sendResponseHeaders(status, -1);
          x.close();
        });
    server.start();
    return server;
  }

  /** The locate request for map 0 to {@code node}. */
  private LocateAnswer request(HttpServer node) throws IOException {
    return client(JobTokens.secret(token))
        .request(host(node.getAddress().getPort()), List.of(FakeMapOutputs.map(JOB, 0)));
  }
}
