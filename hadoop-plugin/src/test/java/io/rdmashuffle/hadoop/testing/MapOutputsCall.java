/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.hadoop.testing;

import io.rdmashuffle.hadoop.MapOutputsRequest;
import io.rdmashuffle.mapoutput.LocateAnswer;
import io.rdmashuffle.mapoutput.LocateLayout;
import java.io.IOException;
import java.io.InputStream;
import java.net.HttpURLConnection;
import java.net.URL;
import java.util.List;
import javax.crypto.SecretKey;
import org.apache.hadoop.mapreduce.security.SecureShuffleUtils;

/** One raw locate request, signed with whatever secret a test chooses. */
public record MapOutputsCall(int status, String replyHash, String contentType, byte[] body) {

  public static MapOutputsCall send(
      int port, String job, int reduce, List<String> maps, SecretKey signWith) throws IOException {
    return send(MapOutputsRequest.url("localhost", port, job, reduce, maps), signWith);
  }

  public static MapOutputsCall send(URL url, SecretKey signWith) throws IOException {
    HttpURLConnection c = (HttpURLConnection) url.openConnection();
    try {
      if (signWith != null) {
        c.addRequestProperty(
            SecureShuffleUtils.HTTP_HEADER_URL_HASH,
            SecureShuffleUtils.hashFromString(SecureShuffleUtils.buildMsgFrom(url), signWith));
      }
      int status = c.getResponseCode();
      InputStream in = status < 400 ? c.getInputStream() : c.getErrorStream();
      byte[] body = in == null ? new byte[0] : in.readAllBytes();
      return new MapOutputsCall(
          status,
          c.getHeaderField(SecureShuffleUtils.HTTP_HEADER_REPLY_URL_HASH),
          c.getContentType(),
          body);
    } finally {
      c.disconnect();
    }
  }

  public LocateAnswer answer() {
    return LocateLayout.decodeAnswer(java.nio.ByteBuffer.wrap(body));
  }

  public String text() {
    return new String(body, java.nio.charset.StandardCharsets.UTF_8);
  }
}
