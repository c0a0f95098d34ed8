/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.hadoop;

import static org.junit.jupiter.api.Assertions.*;

import io.rdmashuffle.config.RdmaConf;
import io.rdmashuffle.node.NodeRuntime;
import io.rdmashuffle.serve.OutputSource;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.file.NoSuchFileException;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A NodeManager's services must be reachable by readers on other hosts whatever this host's name
 * resolves to here: Debian's installer writes {@code 127.0.1.1 <host name>} into {@code
 * /etc/hosts}, so a service bound to its own name would listen on a loopback address only.
 */
class NodeServiceAddressTest {
  private static final OutputSource NOTHING =
      id -> {
        throw new NoSuchFileException(id.toString());
      };

  @Test
  void aServiceWhoseNameResolvesToLoopbackStillListensOnEveryAddress() throws Exception {
    RdmaConf conf =
        HadoopConf.load(
            MapReduceConfig.SCHEMA, conf(Map.of("mapreduce.shuffle.rdma.transport", "tcp")));
    // "localhost" stands for a host name a 127.0.1.1 line resolves: a loopback address
    try (NodeRuntime node =
        NodeRuntime.start(
            NodeServiceAddress.serving(new NodeRuntime.Context(), "localhost")
                .conf(conf)
                .serving(NOTHING))) {
      int port = node.transport().localAddress().port();
      assertEquals("localhost", node.transport().localAddress().host(), "advertised as named");
      // another local address than the one the name resolves to: reachable only when the
      // service did not bind its name's address alone
      try (Socket s = new Socket()) {
        s.connect(new InetSocketAddress("127.0.0.2", port), 3_000);
      } catch (IOException e) {
        fail("the service is not reachable on another address than its name's: " + e);
      }
    }
  }

  @Test
  void aLoopbackAddressIsWarnedAboutOnlyWhenTheClusterHasOtherHosts() {
    assertNotNull(NodeServiceAddress.loopbackWarning("localhost", "203.0.113.7"));
    assertTrue(
        NodeServiceAddress.loopbackWarning("localhost", "203.0.113.7").contains("loopback"),
        NodeServiceAddress.loopbackWarning("localhost", "203.0.113.7"));
    // a one-host cluster (the ResourceManager on this host too) reaches itself on loopback
    assertNull(NodeServiceAddress.loopbackWarning("localhost", "localhost"));
    assertNull(NodeServiceAddress.loopbackWarning("localhost", "0.0.0.0"));
    assertNull(NodeServiceAddress.loopbackWarning("203.0.113.8", "203.0.113.7"));
  }

  private static org.apache.hadoop.conf.Configuration conf(Map<String, String> m) {
    org.apache.hadoop.conf.Configuration c = new org.apache.hadoop.conf.Configuration(false);
    m.forEach(c::set);
    return c;
  }
}
