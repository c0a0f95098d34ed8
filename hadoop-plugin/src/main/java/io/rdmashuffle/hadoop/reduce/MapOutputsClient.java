/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.hadoop.reduce;

import io.rdmashuffle.hadoop.MapOutputsRequest;
import io.rdmashuffle.mapoutput.LocateAnswer;
import io.rdmashuffle.mapoutput.LocateLayout;
import java.io.IOException;
import java.io.InputStream;
import java.net.HttpURLConnection;
import java.net.URI;
import java.net.URL;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import javax.crypto.SecretKey;
import org.apache.hadoop.mapred.JobConf;
import org.apache.hadoop.mapreduce.MRJobConfig;
import org.apache.hadoop.mapreduce.TaskAttemptID;
import org.apache.hadoop.mapreduce.security.SecureShuffleUtils;
import org.apache.hadoop.mapreduce.task.reduce.MapHost;

/**
 * Asks a NodeManager's rdma-shuffle service where to READ some map outputs ({@link
 * MapOutputsRequest}; the answer is the core's {@link LocateAnswer}), on the stock shuffle's host
 * and port, signed with the job's shuffle secret as the stock fetcher signs its URLs, and checks
 * the service's reply hash before trusting the answer. Timeouts are the stock fetcher's ({@code
 * mapreduce.reduce.shuffle.connect.timeout}, {@code read.timeout}). Stateless apart from its
 * settings; any fetcher thread may use it.
 */
final class MapOutputsClient implements NodeLocator {
  /** HTTP status of a node with too many shuffle connections (the stock handler's). */
  static final int TOO_MANY_REQUESTS = 429;

  /** Its header with the milliseconds to wait, and the stock fetcher's default. */
  static final String RETRY_AFTER = "Retry-After";

  static final long RETRY_AFTER_DEFAULT_MILLIS = 1000;

  /** Stock default of both shuffle timeouts (Fetcher.DEFAULT_STALLED_COPY_TIMEOUT). */
  private static final int DEFAULT_TIMEOUT_MILLIS = 3 * 60 * 1000;

  private static final int MAX_ANSWER_BYTES = 16 << 20;

  private final String jobId;
  private final int reduce;
  private final SecretKey secret;
  private final int connectTimeout;
  private final int readTimeout;

  MapOutputsClient(JobConf job, String jobId, int reduce, SecretKey secret) {
    this.jobId = jobId;
    this.reduce = reduce;
    this.secret = secret;
    this.connectTimeout = job.getInt(MRJobConfig.SHUFFLE_CONNECT_TIMEOUT, DEFAULT_TIMEOUT_MILLIS);
    this.readTimeout = job.getInt(MRJobConfig.SHUFFLE_READ_TIMEOUT, DEFAULT_TIMEOUT_MILLIS);
  }

  /**
   * Asks {@code host} for {@code maps} of this task's partition.
   *
   * @throws Unusable when the node does not run the service, does not answer, refuses, or answers
   *     something that is not a valid answer to this request
   * @throws TryLater when the node has too many shuffle connections (429, as the stock fetcher sees
   *     it), with the node's Retry-After
   */
  @Override
  public LocateAnswer request(MapHost host, List<TaskAttemptID> maps) throws Unusable, TryLater {
    URI base = URI.create(host.getBaseUrl());
    List<String> ids = new ArrayList<>(maps.size());
    for (TaskAttemptID m : maps) {
      ids.add(m.toString());
    }
    HttpURLConnection c = null;
    try {
      URL url = MapOutputsRequest.url(base.getHost(), base.getPort(), jobId, reduce, ids);
      String msg = SecureShuffleUtils.buildMsgFrom(url);
      String hash = SecureShuffleUtils.hashFromString(msg, secret);
      c = (HttpURLConnection) url.openConnection();
      c.setConnectTimeout(connectTimeout);
      c.setReadTimeout(readTimeout);
      c.setUseCaches(false);
      c.addRequestProperty(SecureShuffleUtils.HTTP_HEADER_URL_HASH, hash);
      int status;
      try {
        status = c.getResponseCode();
      } catch (IOException e) {
        throw new Unusable("no answer: " + e, e, true);
      }
      if (status == TOO_MANY_REQUESTS) {
        long backoff = c.getHeaderFieldLong(RETRY_AFTER, RETRY_AFTER_DEFAULT_MILLIS);
        throw new TryLater(
            "HTTP 429: " + base.getHost() + " has too many shuffle connections",
            backoff < 0 ? RETRY_AFTER_DEFAULT_MILLIS : backoff);
      }
      if (status == HttpURLConnection.HTTP_UNAVAILABLE && c.getHeaderField(RETRY_AFTER) != null) {
        // the service is starting or stopping: away for now, as a node that refuses connections
        throw new Unusable(describe(status, c), null, true);
      }
      if (status != HttpURLConnection.HTTP_OK) {
        throw new Unusable(describe(status, c), null);
      }
      String reply = c.getHeaderField(SecureShuffleUtils.HTTP_HEADER_REPLY_URL_HASH);
      if (reply == null) {
        throw new Unusable("answer without " + SecureShuffleUtils.HTTP_HEADER_REPLY_URL_HASH, null);
      }
      SecureShuffleUtils.verifyReply(reply, hash, secret);
      if (!MapOutputsRequest.CONTENT_TYPE.equals(c.getContentType())) {
        throw new Unusable("answer of content type " + c.getContentType(), null);
      }
      byte[] body = readBody(c);
      LocateAnswer a = LocateLayout.decodeAnswer(ByteBuffer.wrap(body));
      check(a, ids);
      return a;
    } catch (Unusable | TryLater e) {
      throw e;
    } catch (IOException | IllegalArgumentException e) {
      throw new Unusable(e.toString(), e);
    } finally {
      if (c != null) {
        c.disconnect();
      }
    }
  }

  /** The answer must be for what was asked: the same maps in order, this task's partition. */
  private void check(LocateAnswer a, List<String> asked) throws Unusable {
    if (a.maps().size() != asked.size()) {
      throw new Unusable(
          "answer with " + a.maps().size() + " maps, asked for " + asked.size(), null);
    }
    for (int i = 0; i < asked.size(); i++) {
      LocateAnswer.Located e = a.maps().get(i);
      if (!e.map().equals(asked.get(i))) {
        throw new Unusable("answer names map " + e.map() + ", asked for " + asked.get(i), null);
      }
      if (e.ok()
          && (e.data() == null
              || e.partitions().first() > reduce
              || e.partitions().end() <= reduce)) {
        throw new Unusable(
            "answer for map "
                + e.map()
                + " does not describe a registered"
                + " partition "
                + reduce,
            null);
      }
    }
  }

  private static String describe(int status, HttpURLConnection c) {
    return switch (status) {
      case HttpURLConnection.HTTP_BAD_REQUEST ->
          "HTTP 400: the node runs the stock ShuffleHandler, not rdma-shuffle's service";
      case HttpURLConnection.HTTP_UNAUTHORIZED -> "HTTP 401: the node refused the job's token";
      case HttpURLConnection.HTTP_UNAVAILABLE ->
          "HTTP 503: the node's service is not serving READs";
      default -> "HTTP " + status + " " + message(c);
    };
  }

  private static String message(HttpURLConnection c) {
    try {
      return c.getResponseMessage();
    } catch (IOException e) {
      return "";
    }
  }

  private static byte[] readBody(HttpURLConnection c) throws IOException {
    long length = c.getContentLengthLong();
    if (length < 0 || length > MAX_ANSWER_BYTES) {
      throw new IOException("answer length=" + length + ": not in 0 .. " + MAX_ANSWER_BYTES);
    }
    try (InputStream in = c.getInputStream()) {
      byte[] body = in.readNBytes((int) length);
      if (body.length != length) {
        throw new IOException("answer truncated at " + body.length + " of " + length + " bytes");
      }
      return body;
    }
  }
}
