/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.hadoop.testing;

import java.io.IOException;
import java.nio.ByteBuffer;
import javax.crypto.SecretKey;
import org.apache.hadoop.io.Text;
import org.apache.hadoop.mapred.ShuffleHandler;
import org.apache.hadoop.mapreduce.JobID;
import org.apache.hadoop.mapreduce.security.token.JobTokenIdentifier;
import org.apache.hadoop.mapreduce.security.token.JobTokenSecretManager;
import org.apache.hadoop.security.token.Token;
import org.apache.hadoop.yarn.api.records.ApplicationId;
import org.apache.hadoop.yarn.server.api.ApplicationInitializationContext;
import org.apache.hadoop.yarn.server.api.ApplicationTerminationContext;

/** Job tokens as the MapReduce AM hands them to the shuffle service. */
public final class JobTokens {
  private JobTokens() {}

  public static Token<JobTokenIdentifier> token(JobID job) {
    return new Token<>(
        new JobTokenIdentifier(new Text(job.toString())), new JobTokenSecretManager());
  }

  public static SecretKey secret(Token<JobTokenIdentifier> token) {
    return JobTokenSecretManager.createSecretKey(token.getPassword());
  }

  public static ApplicationId app(JobID job) {
    return ApplicationId.newInstance(Long.parseLong(job.getJtIdentifier()), job.getId());
  }

  public static ApplicationInitializationContext init(
      JobID job, String user, Token<JobTokenIdentifier> token) throws IOException {
    ByteBuffer data = ShuffleHandler.serializeServiceData(token);
    return new ApplicationInitializationContext(user, app(job), data);
  }

  public static ApplicationTerminationContext stop(JobID job) {
    return new ApplicationTerminationContext(app(job));
  }
}
