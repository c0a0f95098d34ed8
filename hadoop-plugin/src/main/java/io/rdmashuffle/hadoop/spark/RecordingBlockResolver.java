/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.hadoop.spark;

import java.io.File;
import java.io.IOException;
import org.apache.spark.network.shuffle.ExternalShuffleBlockResolver;
import org.apache.spark.network.shuffle.protocol.ExecutorShuffleInfo;
import org.apache.spark.network.util.TransportConf;

/**
 * Spark's own block resolver (stock fetches, its recovery database), which also tells {@link
 * SparkExecutors} of every executor that registers, so that the rdma-shuffle side serves the same
 * executors' map outputs. An executor whose local dirs lie outside its application's folders below
 * the NodeManager's local dirs is refused before Spark records it.
 *
 * <p>The executor's shuffle manager name is passed on unchanged: Spark's resolver no longer checks
 * it (it reads the sort shuffle's file layout whatever the name), and rdma-shuffle's manager writes
 * exactly that layout through Spark's own sort shuffle writers.
 */
final class RecordingBlockResolver extends ExternalShuffleBlockResolver {
  private final SparkExecutors executors;

  RecordingBlockResolver(TransportConf conf, File registeredExecutorFile, SparkExecutors executors)
      throws IOException {
    super(conf, registeredExecutorFile);
    this.executors = executors;
  }

  @Override
  public void registerExecutor(String appId, String execId, ExecutorShuffleInfo info) {
    executors.register(appId, execId, info.localDirs, info.subDirsPerLocalDir);
    super.registerExecutor(appId, execId, info);
  }
}
