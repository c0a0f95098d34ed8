package io.rdmashuffle.testing;

import io.rdmashuffle.config.KeyStyle;
import io.rdmashuffle.config.RdmaConf;
import io.rdmashuffle.memory.Access;
import io.rdmashuffle.memory.DirectMemory;
import io.rdmashuffle.memory.MemoryPiece;
import io.rdmashuffle.memory.RegisteredRegion;
import io.rdmashuffle.metrics.TransportMetrics;
import io.rdmashuffle.transport.ApplicationSecrets;
import io.rdmashuffle.transport.Transport;
import io.rdmashuffle.transport.TransportContext;
import io.rdmashuffle.transport.TransportSelector;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Map;

/**
 * A separate process that serves one registered region, for tests that kill the serving side:
 * {@code ServingProcess <transport> <host> <application> <secret> <bytes> <seed>}. Prints
 * {@code READY <port> <rkey> <address> <length>} when serving, then serves until killed.
 */
public final class ServingProcess {
  private ServingProcess() {}

  public static void main(String[] args) throws Exception {
    String transport = args[0];
    String host = args[1];
    String app = args[2];
    byte[] secret = args[3].getBytes(StandardCharsets.UTF_8);
    int bytes = Integer.parseInt(args[4]);
    int seed = Integer.parseInt(args[5]);
    RdmaConf conf = RdmaConf.of(KeyStyle.SPARK, Map.of("spark.shuffle.rdma.transport", transport));
    Transport t =
        TransportSelector.standard()
            .start(
                new TransportContext(
                    conf, ApplicationSecrets.of(app, secret), host, new TransportMetrics()));
    ByteBuffer memory = DirectMemory.allocate(bytes);
    Patterns.fill(memory, 0, seed);
    RegisteredRegion r =
        t.registrar().register(MemoryPiece.of(memory), Access.REMOTE_READ, app, () -> { });
    System.out.println(
        "READY " + t.localAddress().port() + " " + r.rkey() + " " + r.address() + " " + r.length());
    System.out.flush();
    Thread.sleep(Long.MAX_VALUE);
  }
}
