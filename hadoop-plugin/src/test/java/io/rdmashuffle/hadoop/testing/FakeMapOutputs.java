/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.hadoop.testing;

import io.rdmashuffle.testing.Patterns;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.apache.hadoop.mapred.IndexRecord;
import org.apache.hadoop.mapred.JobConf;
import org.apache.hadoop.mapred.SpillRecord;
import org.apache.hadoop.mapreduce.JobID;
import org.apache.hadoop.mapreduce.TaskAttemptID;
import org.apache.hadoop.mapreduce.TaskType;
import org.apache.hadoop.yarn.api.records.ApplicationId;

/**
 * Map outputs laid out as a NodeManager holds them, for service tests: {@code file.out} of pattern
 * bytes (byte i is {@code Patterns.at(i, seed)}) cut into partitions of given lengths, and a
 * checksummed {@code file.out.index} written by Hadoop's SpillRecord. The bytes are not IFile data:
 * the service serves them opaque.
 */
public final class FakeMapOutputs {
  private FakeMapOutputs() {}

  public static JobID job(int id) {
    return new JobID("1700000000000", id);
  }

  public static TaskAttemptID map(JobID job, int task) {
    return new TaskAttemptID(job.getJtIdentifier(), job.getId(), TaskType.MAP, task, 0);
  }

  /** {@code <dir>/usercache/<user>/appcache/<app>/output/} */
  public static Path outputDir(Path localDir, JobID job, String user) {
    ApplicationId app =
        ApplicationId.newInstance(Long.parseLong(job.getJtIdentifier()), job.getId());
    return localDir
        .resolve("usercache")
        .resolve(user)
        .resolve("appcache")
        .resolve(app.toString())
        .resolve("output");
  }

  /**
   * Writes one map output; partition p has {@code lengths[p]} bytes, raw length twice that.
   *
   * @return the attempt's dir
   */
  public static Path write(
      Path localDir, JobID job, String user, TaskAttemptID map, int seed, long... lengths)
      throws IOException {
    Path dir = outputDir(localDir, job, user).resolve(map.toString());
    Files.createDirectories(dir);
    long total = 0;
    SpillRecord index = new SpillRecord(lengths.length);
    for (int p = 0; p < lengths.length; p++) {
      index.putIndex(new IndexRecord(total, 2 * lengths[p], lengths[p]), p);
      total += lengths[p];
    }
    Patterns.file(dir.resolve("file.out"), total, seed);
    index.writeToFile(
        new org.apache.hadoop.fs.Path(dir.resolve("file.out.index").toString()), new JobConf());
    return dir;
  }
}
