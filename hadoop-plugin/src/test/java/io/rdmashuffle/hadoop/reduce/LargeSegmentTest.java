/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.hadoop.reduce;

import static org.junit.jupiter.api.Assertions.*;

import io.rdmashuffle.config.RdmaConf;
import io.rdmashuffle.config.RdmaShuffleConfig;
import io.rdmashuffle.hadoop.JobSecrets;
import io.rdmashuffle.hadoop.MapReduceConfig;
import io.rdmashuffle.hadoop.service.RdmaShuffleHandler;
import io.rdmashuffle.hadoop.testing.FakeMapOutputs;
import io.rdmashuffle.hadoop.testing.JobTokens;
import io.rdmashuffle.hadoop.testing.LocalDirs;
import io.rdmashuffle.mapoutput.LocateAnswer;
import io.rdmashuffle.mapoutput.PartitionTable;
import io.rdmashuffle.node.NodeRuntime;
import io.rdmashuffle.transport.handshake.ApplicationSecrets;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.Map;
import java.util.zip.CRC32;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.mapred.IndexRecord;
import org.apache.hadoop.mapred.JobConf;
import org.apache.hadoop.mapred.ShuffleHandler;
import org.apache.hadoop.mapred.SpillRecord;
import org.apache.hadoop.mapreduce.JobID;
import org.apache.hadoop.mapreduce.TaskAttemptID;
import org.apache.hadoop.mapreduce.security.token.JobTokenIdentifier;
import org.apache.hadoop.mapreduce.task.reduce.MapHost;
import org.apache.hadoop.metrics2.lib.DefaultMetricsSystem;
import org.apache.hadoop.security.token.Token;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A map output partition of more than 2 GiB, and one that lies beyond 2 GiB in its file, served by
 * the NodeManager service and read by the reduce side: the index's offsets and lengths, the locate
 * answer, the registered file's pieces and the READs all carry them as longs. The file is sparse
 * (zeros but for a few marker bytes), so it costs little disk; the READs move its bytes once.
 */
@Timeout(120)
class LargeSegmentTest {
  private static final String USER = "alice";
  private static final JobID JOB = FakeMapOutputs.job(21);
  private static final long SMALL = 4096;

  /** Partition 1: more than 2 GiB, starting after partition 0 and crossing 2^31 in the file. */
  private static final long LARGE = (1L << 31) + 5000;

  @TempDir Path tmp;
  private RdmaShuffleHandler service;
  private NodeRuntime reader;

  @BeforeAll
  static void metrics() {
    DefaultMetricsSystem.setMiniClusterMode(true);
  }

  @AfterEach
  void stop() {
    if (reader != null) {
      reader.close();
    }
    if (service != null) {
      service.stop();
    }
  }

  /** {@code file.out} of partitions {SMALL, LARGE, SMALL}, sparse, with marker bytes. */
  private static Path writeOutput(Path localDir, TaskAttemptID map, long[] markers)
      throws IOException {
    Path dir = FakeMapOutputs.outputDir(localDir, JOB, USER).resolve(map.toString());
    Files.createDirectories(dir);
    long[] lengths = {SMALL, LARGE, SMALL};
    SpillRecord index = new SpillRecord(lengths.length);
    long total = 0;
    for (int p = 0; p < lengths.length; p++) {
      index.putIndex(new IndexRecord(total, 2 * lengths[p], lengths[p]), p);
      total += lengths[p];
    }
    Path data = dir.resolve("file.out");
    try (RandomAccessFile f = new RandomAccessFile(data.toFile(), "rw")) {
      f.setLength(total);
    }
    try (FileChannel ch = FileChannel.open(data, StandardOpenOption.WRITE)) {
      for (int i = 0; i < markers.length; i++) {
        ch.write(ByteBuffer.wrap(new byte[] {(byte) (i + 1)}), markers[i]);
      }
    }
    index.writeToFile(
        new org.apache.hadoop.fs.Path(dir.resolve("file.out.index").toString()), new JobConf());
    return data;
  }

  private static long crc(Path file, long offset, long length) throws IOException {
    CRC32 crc = new CRC32();
    ByteBuffer b = ByteBuffer.allocateDirect(4 << 20);
    try (FileChannel ch = FileChannel.open(file)) {
      long pos = offset;
      long end = offset + length;
      while (pos < end) {
        b.clear().limit((int) Math.min(b.capacity(), end - pos));
        int n = ch.read(b, pos);
        assertTrue(n > 0, "file ended at " + pos);
        b.flip();
        crc.update(b);
        pos += n;
      }
    }
    return crc.getValue();
  }

  @Test
  void aPartitionOfMoreThan2GiBAndOneBeyond2GiBInItsFileAreReadWhole() throws Exception {
    Path local = Files.createDirectories(tmp.resolve("local"));
    Token<JobTokenIdentifier> token = JobTokens.token(JOB);
    Configuration conf = new Configuration();
    conf.setInt(ShuffleHandler.SHUFFLE_PORT_CONFIG_KEY, 0);
    conf.set("mapreduce.shuffle.rdma.host", "127.0.0.1");
    service = new RdmaShuffleHandler();
    service.setAuxiliaryLocalPathHandler(new LocalDirs(List.of(local)));
    service.init(conf);
    service.start();
    service.initializeApplication(JobTokens.init(JOB, USER, token));
    int port = ShuffleHandler.deserializeMetaData(service.getMetaData());

    TaskAttemptID map = FakeMapOutputs.map(JOB, 0);
    long large = SMALL;
    long last = SMALL + LARGE;
    Path data =
        writeOutput(
            local,
            map,
            new long[] {
              large, // the large partition's first byte
              (1L << 31) - 1, // either side of 2^31 in the file
              1L << 31,
              large + (1L << 31) - 1, // either side of 2^31 in the partition
              large + (1L << 31),
              last - 1, // its last byte
              last, // the partition beyond 2 GiB
              last + SMALL - 1
            });

    RdmaConf rc =
        RdmaConf.of(
            MapReduceConfig.SCHEMA,
            Map.of(
                "mapreduce.shuffle.rdma.transport", "tcp",
                "mapreduce.shuffle.rdma.read.timeout", "30s",
                "mapreduce.shuffle.rdma.buffers.maxBytes", "64m"));
    reader =
        NodeRuntime.start(
            new NodeRuntime.Context()
                .conf(rc.with(Map.of(RdmaShuffleConfig.PORT, "0")))
                .defaultHost("127.0.0.1")
                .secrets(
                    ApplicationSecrets.of(
                        JOB.toString(),
                        JobSecrets.transportSecret(token.getPassword(), JOB.toString())))
                .reading(true));
    MapHost host = new MapHost("127.0.0.1:" + port, "http://127.0.0.1:" + port + "/mapOutput");

    for (int reduce : new int[] {1, 2}) {
      long start = reduce == 1 ? large : last;
      long length = reduce == 1 ? LARGE : SMALL;
      MapOutputsClient client =
          new MapOutputsClient(new JobConf(false), JOB.toString(), reduce, JobTokens.secret(token));
      LocateAnswer a = client.request(host, List.of(map));
      LocateAnswer.Located e = a.maps().get(0);
      assertTrue(e.ok(), e.status() + " " + e.message());
      PartitionTable t = e.partitions();
      assertEquals(start, t.start(reduce));
      assertEquals(length, t.length(reduce));
      assertEquals(2 * length, t.rawLength(reduce));

      CRC32 got = new CRC32();
      long read = 0;
      try (SegmentInputStream in =
          new SegmentInputStream(
              reader.connections(),
              reader.buffers(),
              a.responder(),
              JOB.toString(),
              e.data(),
              t.start(reduce),
              t.length(reduce),
              4 << 20,
              32 << 20,
              30_000,
              () -> {})) {
        byte[] buf = new byte[1 << 20];
        int n;
        while ((n = in.read(buf, 0, buf.length)) > 0) {
          got.update(buf, 0, n);
          read += n;
        }
      }
      assertEquals(length, read, "partition " + reduce + ": bytes read");
      assertEquals(crc(data, start, length), got.getValue(), "partition " + reduce + ": its bytes");
    }
  }
}
