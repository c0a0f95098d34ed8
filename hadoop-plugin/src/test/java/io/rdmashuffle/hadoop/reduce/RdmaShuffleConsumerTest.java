/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.hadoop.reduce;

import static org.junit.jupiter.api.Assertions.*;

import io.rdmashuffle.config.ConfigException;
import java.util.Map;
import org.apache.hadoop.mapred.JobConf;
import org.apache.hadoop.mapred.Reporter;
import org.apache.hadoop.mapred.ShuffleConsumerPlugin;
import org.apache.hadoop.mapreduce.MRConfig;
import org.apache.hadoop.mapreduce.MRJobConfig;
import org.apache.hadoop.mapreduce.TaskAttemptID;
import org.apache.hadoop.mapreduce.TaskType;
import org.junit.jupiter.api.Test;

class RdmaShuffleConsumerTest {
  private static ShuffleConsumerPlugin.Context<Object, Object> context(JobConf job) {
    TaskAttemptID reduce = new TaskAttemptID("1", 1, TaskType.REDUCE, 0, 0);
    return new ShuffleConsumerPlugin.Context<>(
        reduce,
        job,
        null,
        null,
        null,
        Reporter.NULL,
        null,
        null,
        null,
        null,
        null,
        null,
        null,
        null,
        null,
        null,
        null,
        null,
        null,
        null,
        null);
  }

  @Test
  void aBadSettingFailsTheReduceTaskNamingKeyAndValue() {
    JobConf job = new JobConf(false);
    job.set("mapreduce.shuffle.rdma.fetch.chunkSize", "huge");
    ConfigException e =
        assertThrows(
            ConfigException.class,
            () -> new RdmaShuffleConsumer<Object, Object>().init(context(job)));
    assertTrue(
        e.getMessage().startsWith("mapreduce.shuffle.rdma.fetch.chunkSize=huge"), e.getMessage());

    JobConf big = new JobConf(false);
    big.set("mapreduce.shuffle.rdma.fetch.chunkSize", "32m");
    e =
        assertThrows(
            ConfigException.class,
            () -> new RdmaShuffleConsumer<Object, Object>().init(context(big)));
    assertTrue(
        e.getMessage().contains("must not exceed mapreduce.shuffle.rdma.buffers.chunkSize"),
        e.getMessage());
  }

  @Test
  void jobsOurTransportCannotServeAsConfiguredRunTheStockShuffle() {
    JobConf plain = new JobConf(false);
    assertNull(RdmaShuffleConsumer.stockOnlyReason(plain, null));
    JobConf ssl = new JobConf(false);
    ssl.setBoolean(MRConfig.SHUFFLE_SSL_ENABLED_KEY, true);
    assertTrue(RdmaShuffleConsumer.stockOnlyReason(ssl, null).contains("does not encrypt"));
    JobConf encrypted = new JobConf(false);
    encrypted.setBoolean(MRJobConfig.MR_ENCRYPTED_INTERMEDIATE_DATA, true);
    assertNotNull(RdmaShuffleConsumer.stockOnlyReason(encrypted, null));
    assertNotNull(RdmaShuffleConsumer.stockOnlyReason(plain, Map.of()));
  }
}
