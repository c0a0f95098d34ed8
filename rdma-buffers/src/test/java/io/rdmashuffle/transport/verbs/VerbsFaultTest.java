/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.transport.verbs;

import static org.junit.jupiter.api.Assertions.*;

import io.rdmashuffle.config.RdmaConf;
import io.rdmashuffle.memory.Access;
import io.rdmashuffle.memory.BufferPool;
import io.rdmashuffle.memory.DirectMemory;
import io.rdmashuffle.memory.MemoryPiece;
import io.rdmashuffle.memory.PooledBuffer;
import io.rdmashuffle.memory.RegisteredRegion;
import io.rdmashuffle.metrics.FailureKind;
import io.rdmashuffle.metrics.TransportMetrics;
import io.rdmashuffle.node.TransportSelector;
import io.rdmashuffle.testing.Patterns;
import io.rdmashuffle.testing.ReadResults;
import io.rdmashuffle.testing.TestSchema;
import io.rdmashuffle.transport.LocalSideException;
import io.rdmashuffle.transport.ReadChannel;
import io.rdmashuffle.transport.ReadListener;
import io.rdmashuffle.transport.ReadOp;
import io.rdmashuffle.transport.Transport;
import io.rdmashuffle.transport.TransportException;
import io.rdmashuffle.transport.handshake.ApplicationSecrets;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.condition.EnabledIf;

/**
 * Faults only real verbs can have: an RDMA device deleted ({@code rdma link delete}) while READs
 * are in flight, on the serving side and on the reading side. Every READ must end in a typed error
 * within its timeout, the JVM must not crash, and the device removal must complete (which it does
 * only once the process released every verbs resource of the device). Runs in the Soft-RoCE guest,
 * as root; re-creates each device afterwards.
 */
@EnabledIf("io.rdmashuffle.transport.verbs.VerbsTransportTest#verbsAvailable")
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
@Timeout(value = 600, unit = TimeUnit.SECONDS)
class VerbsFaultTest {
  private static final String APP = "app-faults";
  private static final byte[] SECRET = "fault-secret-0123456789".getBytes(StandardCharsets.UTF_8);
  private static final String SERVER = System.getProperty("rdma.test.serverHost", "198.18.100.1");
  private static final String CLIENT = System.getProperty("rdma.test.clientHost", "198.18.100.2");
  private static final long TIMEOUT_SECONDS = Long.getLong("rdma.test.readTimeoutSeconds", 30);

  private static Transport start(String host) throws Exception {
    RdmaConf conf =
        RdmaConf.of(
            TestSchema.SPARK_KEYS,
            Map.of(
                "spark.shuffle.rdma.transport",
                "verbs",
                "spark.shuffle.rdma.read.timeout",
                TIMEOUT_SECONDS + "s",
                "spark.shuffle.rdma.connect.timeout",
                3 * TIMEOUT_SECONDS + "s",
                "spark.shuffle.rdma.buffers.maxBytes",
                "256m"));
    return TransportSelector.standard()
        .start(conf, ApplicationSecrets.of(APP, SECRET), host, new TransportMetrics());
  }

  private static void rdma(String... args) throws IOException, InterruptedException {
    List<String> cmd = new ArrayList<>(List.of("rdma"));
    cmd.addAll(List.of(args));
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    boolean done = p.waitFor(120, TimeUnit.SECONDS);
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertTrue(
        done, "`rdma " + String.join(" ", args) + "` hung: the process still holds the device");
    assertEquals(0, p.exitValue(), "`rdma " + String.join(" ", args) + "`: " + out);
  }

  /** Deletes {@code device} while 4 MiB READs stream from the server, then checks the outcome. */
  private void removeMidTransfer(String device, String netdev, boolean serverSide)
      throws Exception {
    Transport server = start(SERVER);
    Transport client = start(CLIENT);
    BufferPool pool = new BufferPool(client.registrar(), 4096, 16 << 20, 256L << 20, true);
    ByteBuffer memory = DirectMemory.allocate(32 << 20);
    Patterns.fill(memory, 0, 1);
    RegisteredRegion region =
        server.registrar().register(MemoryPiece.of(memory), Access.REMOTE_READ, APP, () -> {});
    boolean recreated = false;
    try {
      ReadChannel c = client.connect(server.localAddress(), APP);
      PooledBuffer b = pool.allocate(16 << 20, 10, TimeUnit.SECONDS);
      int count = 200;
      ReadResults results = new ReadResults(count);
      AtomicBoolean removing = new AtomicBoolean();
      Thread[] remover = new Thread[1];
      Throwable[] removeFailure = new Throwable[1];
      ReadListener listener =
          new ReadListener() {
            @Override
            public void onReadComplete(ReadOp op) {
              if (removing.compareAndSet(false, true)) {
                remover[0] =
                    new Thread(
                        () -> {
                          try {
                            rdma("link", "delete", device);
                          } catch (Throwable t) {
                            removeFailure[0] = t;
                          }
                        });
                remover[0].start();
              }
              results.onReadComplete(op);
            }

            @Override
            public void onReadFailed(ReadOp op, TransportException e) {
              results.onReadFailed(op, e);
            }
          };
      List<ReadOp> ops = new ArrayList<>();
      for (int i = 0; i < count; i++) {
        ops.add(
            new ReadOp()
                .set(
                    region.address() + (i % 8) * (4L << 20),
                    region.rkey(),
                    4 << 20,
                    b,
                    (i % 4) * (4 << 20),
                    listener));
      }
      long t0 = System.nanoTime();
      c.postAll(ops);
      long bound = 4 * TIMEOUT_SECONDS + 60;
      assertTrue(
          results.await(bound, TimeUnit.SECONDS), "READs hung after " + device + " was deleted");
      remover[0].join(TimeUnit.SECONDS.toMillis(150));
      assertFalse(remover[0].isAlive(), "`rdma link delete " + device + "` never finished");
      assertNull(removeFailure[0], () -> "rdma link delete failed: " + removeFailure[0]);
      assertFalse(results.failures().isEmpty(), "no READ failed although " + device + " is gone");
      for (TransportException e : results.failures()) {
        // the reading device gone may also fail a READ on this side's own device (a local error)
        assertTrue(
            e.kind() == FailureKind.CONNECTION_LOST
                || e.kind() == FailureKind.TIMEOUT
                || (!serverSide && e.kind() == FailureKind.LOCAL_SIDE),
            "unexpected " + e);
      }
      assertTrue(System.nanoTime() - t0 < TimeUnit.SECONDS.toNanos(bound));
      // the transport that lost its device can't set up its own side of a connection any more:
      // its own failure, never blamed on the peer it connects to
      Transport gone = serverSide ? server : client;
      LocalSideException refused =
          assertThrows(LocalSideException.class, () -> gone.connect(server.localAddress(), APP));
      assertTrue(
          refused.getMessage().contains("removed") || refused.getMessage().contains("closed"),
          refused.getMessage());
      b.release();
      rdma("link", "add", device, "type", "rxe", "netdev", netdev);
      recreated = true;
    } finally {
      region.close();
      pool.close();
      client.close();
      server.close();
      if (!recreated) {
        try {
          rdma("link", "add", device, "type", "rxe", "netdev", netdev);
        } catch (Throwable t) {
          // the assertion above already failed the test
        }
      }
    }
  }

  @Test
  @Order(1)
  void deletingTheServingDeviceMidTransferEndsEveryReadInATypedError() throws Exception {
    removeMidTransfer("rxe0", "veth0", true);
  }

  @Test
  @Order(2)
  void deletingTheReadingDeviceMidTransferEndsEveryReadInATypedError() throws Exception {
    removeMidTransfer("rxe1", "veth1", false);
  }
}
