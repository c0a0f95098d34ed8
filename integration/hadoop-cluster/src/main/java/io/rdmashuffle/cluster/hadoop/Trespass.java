/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.cluster.hadoop;

import io.rdmashuffle.config.RdmaConf;
import io.rdmashuffle.config.RdmaShuffleConfig;
import io.rdmashuffle.hadoop.JobSecrets;
import io.rdmashuffle.hadoop.MapOutputsRequest;
import io.rdmashuffle.mapoutput.LocateAnswer;
import io.rdmashuffle.mapoutput.LocateLayout;
import io.rdmashuffle.memory.BufferPool;
import io.rdmashuffle.memory.PooledBuffer;
import io.rdmashuffle.memory.RegionDescriptor;
import io.rdmashuffle.metrics.TransportMetrics;
import io.rdmashuffle.node.TransportSelector;
import io.rdmashuffle.transport.PeerAddress;
import io.rdmashuffle.transport.ReadChannel;
import io.rdmashuffle.transport.ReadListener;
import io.rdmashuffle.transport.ReadOp;
import io.rdmashuffle.transport.Transport;
import io.rdmashuffle.transport.TransportException;
import io.rdmashuffle.transport.handshake.ApplicationSecrets;
import java.io.IOException;
import java.io.InputStream;
import java.net.HttpURLConnection;
import java.net.URL;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import javax.crypto.SecretKey;
import org.apache.hadoop.mapreduce.security.SecureShuffleUtils;

/**
 * What a tenant may try against another's map outputs on a shared NodeManager, with a secret of its
 * own (its job's shuffle secret): the multi-user tests' trespassing reducer and the observer that
 * plays the on-path witness run these. Each attempt says what came back and how many of the
 * victim's bytes it got; nothing here is used by rdma-shuffle itself.
 */
final class Trespass {
  /** What a locate over a NodeManager's shuffle port answered. */
  record Located(int status, LocateAnswer answer) {
    /** "401", or per map its status: "NOT_FOUND,NOT_FOUND". */
    String outcome() {
      if (answer == null) {
        return Integer.toString(status);
      }
      List<String> s = new ArrayList<>();
      for (LocateAnswer.Located m : answer.maps()) {
        s.add(m.status().name());
      }
      return String.join(",", s);
    }

    /** Whether the answer describes any map output's bytes (a descriptor or a path). */
    boolean describesAnything() {
      return answer != null && answer.maps().stream().anyMatch(LocateAnswer.Located::ok);
    }
  }

  /** What a READ got: how many bytes landed, or the failure. */
  record Read(int bytes, String failure) {}

  private Trespass() {}

  /**
   * A locate of {@code maps} of {@code job} for partition {@code reduce}, signed with {@code key}.
   */
  static Located locate(
      String host, int port, String job, int reduce, List<String> maps, SecretKey key)
      throws IOException {
    URL url = MapOutputsRequest.url(host, port, job, reduce, maps);
    HttpURLConnection c = (HttpURLConnection) url.openConnection();
    try {
      c.setConnectTimeout(10_000);
      c.setReadTimeout(30_000);
      c.addRequestProperty(
          SecureShuffleUtils.HTTP_HEADER_URL_HASH,
          SecureShuffleUtils.hashFromString(SecureShuffleUtils.buildMsgFrom(url), key));
      int status = c.getResponseCode();
      if (status != HttpURLConnection.HTTP_OK) {
        return new Located(status, null);
      }
      try (InputStream in = c.getInputStream()) {
        return new Located(status, LocateLayout.decodeAnswer(ByteBuffer.wrap(in.readAllBytes())));
      }
    } finally {
      c.disconnect();
    }
  }

  /**
   * READs {@code length} bytes at {@code address} with {@code rkey} from {@code responder} over a
   * connection that proves {@code job}'s transport secret (derived from its shuffle secret, as
   * rdma-shuffle's reducers derive it).
   */
  static Read read(
      PeerAddress responder,
      String job,
      byte[] shuffleSecret,
      long address,
      int rkey,
      int length,
      String localHost)
      throws Exception {
    RdmaConf conf =
        RdmaConf.of(
            io.rdmashuffle.hadoop.MapReduceConfig.SCHEMA,
            Map.of(
                io.rdmashuffle.hadoop.MapReduceConfig.SCHEMA.key(RdmaShuffleConfig.TRANSPORT),
                "tcp"));
    byte[] secret = JobSecrets.transportSecret(shuffleSecret, job);
    try (Transport t =
            TransportSelector.standard()
                .start(
                    conf, ApplicationSecrets.of(job, secret), localHost, new TransportMetrics());
        BufferPool pool = new BufferPool(t.registrar(), 4096, 1 << 20, 8 << 20)) {
      ReadChannel ch;
      try {
        ch = t.connect(responder, job);
      } catch (TransportException e) {
        return new Read(0, "connect: " + e.getClass().getSimpleName() + ": " + e.getMessage());
      }
      try {
        PooledBuffer b = pool.allocate(length, 30, TimeUnit.SECONDS);
        try {
          ByteBuffer view = b.buffer();
          for (int i = 0; i < length; i++) {
            view.put(i, (byte) 0x5A);
          }
          CompletableFuture<String> done = new CompletableFuture<>();
          ch.post(
              new ReadOp()
                  .set(
                      address,
                      rkey,
                      length,
                      b,
                      0,
                      new ReadListener() {
                        @Override
                        public void onReadComplete(ReadOp op) {
                          done.complete(null);
                        }

                        @Override
                        public void onReadFailed(ReadOp op, TransportException cause) {
                          done.complete(
                              cause.getClass().getSimpleName() + ": " + cause.getMessage());
                        }
                      }));
          String failure = done.get(60, TimeUnit.SECONDS);
          int changed = 0;
          for (int i = 0; i < length; i++) {
            changed += view.get(i) == (byte) 0x5A ? 0 : 1;
          }
          return new Read(failure == null ? length : changed, failure);
        } finally {
          b.release();
        }
      } finally {
        ch.close();
      }
    }
  }

  /** The first piece of an answer's first located map: responder, address, rkey, length. */
  static String firstPiece(LocateAnswer a) {
    for (LocateAnswer.Located m : a.maps()) {
      if (m.ok() && m.data() != null && !m.data().pieces().isEmpty()) {
        RegionDescriptor d = m.data().pieces().get(0);
        int length = Math.min(d.length(), 4096);
        return a.responder().host()
            + " "
            + a.responder().port()
            + " "
            + d.address()
            + " "
            + d.rkey()
            + " "
            + length;
      }
    }
    return null;
  }
}
