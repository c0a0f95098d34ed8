/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.hadoop;

import java.net.MalformedURLException;
import java.net.URL;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * A reduce task's question "where do I READ my partition of these map outputs?" (the core's {@code
 * LocateRequest} for one partition), sent to the host and port of the stock shuffle (the only
 * address a reducer learns of a map), on a path of its own:
 *
 * <pre>
 * GET /rdmaShuffle/mapOutputs?job=job_1_0001&amp;reduce=3&amp;maps=attempt_..._m_000001_0,attempt_..._m_000002_0
 * </pre>
 *
 * authenticated exactly as the stock shuffle authenticates its URLs: header {@code UrlHash} is the
 * job's shuffle secret's HMAC of {@code port + path + "?" + query}, and the service answers with
 * {@code ReplyHash}, the HMAC of that hash, proving it knows the secret too; the body is the core's
 * {@code LocateAnswer} in {@code LocateLayout}'s bytes. The maps parameter is deliberately not the
 * stock {@code map}: a NodeManager running the stock ShuffleHandler rejects this request with 400
 * (missing map) before touching any file, instead of streaming map outputs, so the reducer learns
 * cheaply that it must fall back.
 */
public final class MapOutputsRequest {
  public static final String PATH = "/rdmaShuffle/mapOutputs";
  public static final String PARAM_JOB = "job";
  public static final String PARAM_REDUCE = "reduce";
  public static final String PARAM_MAPS = "maps";

  /** Content type of the answer's body: a LocateAnswer in LocateLayout's bytes. */
  public static final String CONTENT_TYPE = "application/x-rdma-shuffle-locate-answer";

  /** At most this many maps per request, as the stock fetcher asks (MAX_MAPS_AT_ONCE). */
  public static final int MAX_MAPS = 100;

  private MapOutputsRequest() {}

  public static URL url(String host, int port, String jobId, int reduce, List<String> maps)
      throws MalformedURLException {
    if (maps.isEmpty() || maps.size() > MAX_MAPS) {
      throw new IllegalArgumentException("maps=" + maps.size() + ": must be in 1 .. " + MAX_MAPS);
    }
    String query =
        PARAM_JOB
            + "="
            + enc(jobId)
            + "&"
            + PARAM_REDUCE
            + "="
            + reduce
            + "&"
            + PARAM_MAPS
            + "="
            + enc(String.join(",", maps));
    return new URL("http", host, port, PATH + "?" + query);
  }

  private static String enc(String s) {
    return URLEncoder.encode(s, StandardCharsets.UTF_8);
  }
}
