/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.transport.verbs;

import io.rdmashuffle.config.RdmaConf;
import io.rdmashuffle.memory.Access;
import io.rdmashuffle.memory.MemoryPiece;
import io.rdmashuffle.memory.RegisteredRegion;
import io.rdmashuffle.metrics.TransportMetrics;
import io.rdmashuffle.node.TransportSelector;
import io.rdmashuffle.testing.TestSchema;
import io.rdmashuffle.transport.Transport;
import io.rdmashuffle.transport.handshake.ApplicationSecrets;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Map;

/**
 * Which file mappings the NIC accepts for remote READ, and how long each registration takes,
 * printed (run in the Soft-RoCE guest): {@code MappedRegistrationProbe [bytes]} (default 1 MiB).
 */
public final class MappedRegistrationProbe {
  private MappedRegistrationProbe() {}

  public static void main(String[] args) throws Exception {
    int size = args.length > 0 ? Integer.parseInt(args[0]) : 1 << 20;
    RdmaConf conf =
        RdmaConf.of(TestSchema.SPARK_KEYS, Map.of("spark.shuffle.rdma.transport", "verbs"));
    try (Transport t =
        TransportSelector.standard()
            .start(
                conf,
                ApplicationSecrets.of("probe", "probe-secret-0123456789".getBytes()),
                "198.18.100.1",
                new TransportMetrics())) {
      for (String dir : new String[] {"/tmp", "/dev/shm", System.getProperty("user.dir")}) {
        Path p = Files.createTempFile(Path.of(dir), "probe", ".bin");
        Files.write(p, new byte[size]);
        for (FileChannel.MapMode mode :
            new FileChannel.MapMode[] {
              FileChannel.MapMode.READ_ONLY,
              FileChannel.MapMode.READ_WRITE,
              FileChannel.MapMode.PRIVATE
            }) {
          try (FileChannel ch =
              mode == FileChannel.MapMode.READ_ONLY
                  ? FileChannel.open(p, StandardOpenOption.READ)
                  : FileChannel.open(p, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            MappedByteBuffer m = ch.map(mode, 0, size);
            for (boolean touch : new boolean[] {false, true}) {
              if (touch) {
                for (int i = 0; i < m.capacity(); i += 4096) {
                  m.get(i);
                }
              }
              long t0 = System.nanoTime();
              try {
                RegisteredRegion r =
                    t.registrar()
                        .register(
                            MemoryPiece.ofMappedFile(m, ch, 0),
                            Access.REMOTE_READ,
                            "probe",
                            () -> {});
                long micros = (System.nanoTime() - t0) / 1000;
                r.close();
                System.out.println(
                    "PROBE "
                        + dir
                        + " "
                        + mode
                        + " touched="
                        + touch
                        + " bytes="
                        + size
                        + ": OK in "
                        + micros
                        + " us");
              } catch (Exception e) {
                System.out.println(
                    "PROBE " + dir + " " + mode + " touched=" + touch + ": " + e.getMessage());
              }
            }
          } catch (Exception e) {
            System.out.println("PROBE " + dir + " " + mode + ": map failed " + e);
          }
        }
        Files.delete(p);
      }
    }
  }
}
