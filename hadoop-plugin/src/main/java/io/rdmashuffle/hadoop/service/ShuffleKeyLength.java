/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.hadoop.service;

import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.hadoop.mapreduce.MRJobConfig;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Whether jobs' shuffle secrets are long enough not to be searched offline. MapReduce's default
 * ({@code mapreduce.shuffle-key-length} = 64 bits) signs every shuffle request with a key an
 * attacker who captured one signed request (or, before handshake version 3, asked any server) can
 * search for; 128 bits can't be. The service warns at start from its own configuration, and once
 * for the first job whose secret is short.
 */
final class ShuffleKeyLength {
  private static final Logger LOG = LoggerFactory.getLogger(RdmaShuffleHandler.class);

  /** Hadoop's key: the length of the shuffle secrets job clients generate. */
  static final String KEY = MRJobConfig.SHUFFLE_KEY_LENGTH;

  /** Hadoop's default for {@link #KEY}. */
  static final int HADOOP_DEFAULT_BITS = MRJobConfig.DEFAULT_SHUFFLE_KEY_LENGTH;

  static final int ENOUGH_BITS = 128;

  private final AtomicBoolean warnedForAJob = new AtomicBoolean();

  /** The warning for secrets of {@code bits}, or null when they are long enough. */
  static String warning(int bits, String whose) {
    if (bits >= ENOUGH_BITS) {
      return null;
    }
    return whose
        + " "
        + bits
        + " bits long: a request signed with it lets anyone who captures one search the secret"
        + " offline and then read that job's map outputs. Set "
        + KEY
        + "="
        + ENOUGH_BITS
        + " (or more) in the mapred-site.xml of every job client";
  }

  /** At service start: {@code bits} is {@link #KEY} in the NodeManager's configuration. */
  static void checkConfigured(int bits) {
    String w = warning(bits, "this cluster's shuffle secrets (" + KEY + " here) are");
    if (w != null) {
      LOG.warn("rdma-shuffle MapReduce service: {}", w);
    }
  }

  /** For each job admitted: warns once, for the first whose secret is short. */
  void checkJob(String job, int secretBytes) {
    String w = warning(secretBytes * 8, "job " + job + "'s shuffle secret is");
    if (w != null && warnedForAJob.compareAndSet(false, true)) {
      LOG.warn("rdma-shuffle MapReduce service: {} (said once; later jobs not named)", w);
    }
  }
}
