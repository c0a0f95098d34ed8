/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.hadoop.service;

import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.QueryStringDecoder;
import io.netty.util.ReferenceCountUtil;
import io.rdmashuffle.hadoop.MapOutputsRequest;
import io.rdmashuffle.mapoutput.LocateRequest;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.RejectedExecutionException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Sits in front of the stock shuffle handler in each connection's pipeline of the stock shuffle's
 * port. Answers locate requests on {@link MapOutputsRequest#PATH} and passes everything else to the
 * stock handler untouched. Parsing happens here, on the Netty thread; the answer (token check,
 * finding and registering map outputs) is built on the service's own threads, since registering
 * memory may take a while and must not stall the stock shuffle's event loop. One instance per
 * connection.
 */
final class MapOutputsRequestHandler extends ChannelInboundHandlerAdapter {
  private static final Logger LOG = LoggerFactory.getLogger(MapOutputsRequestHandler.class);

  /** How long a reducer told the service is busy waits before it asks again. */
  static final long RETRY_AFTER_MILLIS = 1000;

  private final RdmaShuffleHandler service;

  MapOutputsRequestHandler(RdmaShuffleHandler service) {
    this.service = service;
  }

  /** A parsed request, not yet authenticated: the core's locate request for one partition. */
  record Request(String uri, String jobId, LocateRequest locate, String urlHash) {}

  /**
   * The answer to send: status, body, the reply hash when the request was authenticated, and
   * whether it carries {@code Retry-After} (a busy service, 429, or one that is starting or
   * stopping, 503).
   */
  record Response(
      HttpResponseStatus status,
      byte[] body,
      String contentType,
      String replyHash,
      boolean retryLater) {
    Response(HttpResponseStatus status, byte[] body, String contentType, String replyHash) {
      this(status, body, contentType, replyHash, false);
    }

    static Response error(HttpResponseStatus status, String message) {
      return new Response(
          status,
          (message + "\n").getBytes(StandardCharsets.UTF_8),
          "text/plain; charset=UTF-8",
          null,
          status.equals(HttpResponseStatus.TOO_MANY_REQUESTS));
    }

    /**
     * The service is starting or stopping (a NodeManager restart): 503 with {@code Retry-After},
     * which a reducer takes for a node that is away for now, not for one without READs.
     */
    static Response comeBackLater() {
      return new Response(
          HttpResponseStatus.SERVICE_UNAVAILABLE,
          "rdma-shuffle service is starting or stopping\n".getBytes(StandardCharsets.UTF_8),
          "text/plain; charset=UTF-8",
          null,
          true);
    }
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) {
    if (!(msg instanceof FullHttpRequest)) {
      ctx.fireChannelRead(msg);
      return;
    }
    FullHttpRequest http = (FullHttpRequest) msg;
    QueryStringDecoder q = new QueryStringDecoder(http.uri());
    if (!MapOutputsRequest.PATH.equals(q.path())) {
      ctx.fireChannelRead(msg);
      return;
    }
    Request request;
    try {
      if (http.method() != HttpMethod.GET) {
        respond(ctx, Response.error(HttpResponseStatus.METHOD_NOT_ALLOWED, "GET only"));
        return;
      }
      request =
          parse(
              http.uri(),
              q.parameters(),
              http.headers()
                  .get(
                      org.apache.hadoop.mapreduce.security.SecureShuffleUtils
                          .HTTP_HEADER_URL_HASH));
    } catch (IllegalArgumentException e) {
      respond(ctx, Response.error(HttpResponseStatus.BAD_REQUEST, e.getMessage()));
      return;
    } finally {
      ReferenceCountUtil.release(msg);
    }
    try {
      if (!service.answerLater(() -> respond(ctx, service.answer(request)))) {
        respond(
            ctx,
            Response.error(
                HttpResponseStatus.TOO_MANY_REQUESTS,
                "rdma-shuffle service busy: more than call.queue requests waiting"));
      }
    } catch (RejectedExecutionException e) {
      respond(ctx, Response.comeBackLater());
    }
  }

  static Request parse(String uri, Map<String, List<String>> params, String urlHash) {
    String job = single(params, MapOutputsRequest.PARAM_JOB);
    String reduceText = single(params, MapOutputsRequest.PARAM_REDUCE);
    String mapsText = single(params, MapOutputsRequest.PARAM_MAPS);
    int reduce;
    try {
      reduce = Integer.parseInt(reduceText);
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("reduce=" + reduceText + ": not a number");
    }
    if (reduce < 0) {
      throw new IllegalArgumentException("reduce=" + reduce + ": must not be negative");
    }
    List<String> maps = new ArrayList<>(Arrays.asList(mapsText.split(",")));
    if (maps.isEmpty() || maps.size() > MapOutputsRequest.MAX_MAPS || maps.contains("")) {
      throw new IllegalArgumentException(
          "maps: between 1 and "
              + MapOutputsRequest.MAX_MAPS
              + " map attempt ids, comma separated");
    }
    // the job has one shuffle: the core's shuffle name is empty
    return new Request(uri, job, new LocateRequest("", maps, reduce, reduce + 1, false), urlHash);
  }

  private static String single(Map<String, List<String>> params, String name) {
    List<String> v = params.get(name);
    if (v == null || v.size() != 1 || v.get(0).isEmpty()) {
      throw new IllegalArgumentException("parameter " + name + ": exactly one value required");
    }
    return v.get(0);
  }

  private static void respond(ChannelHandlerContext ctx, Response r) {
    FullHttpResponse resp =
        new DefaultFullHttpResponse(
            HttpVersion.HTTP_1_1, r.status(), Unpooled.wrappedBuffer(r.body()));
    resp.headers().set(HttpHeaderNames.CONTENT_TYPE, r.contentType());
    resp.headers().set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
    if (r.retryLater()) {
      // milliseconds, as the stock handler sends it and the reduce side reads it
      resp.headers().set("Retry-After", Long.toString(RETRY_AFTER_MILLIS));
    }
    if (r.replyHash() != null) {
      resp.headers()
          .set(
              org.apache.hadoop.mapreduce.security.SecureShuffleUtils.HTTP_HEADER_REPLY_URL_HASH,
              r.replyHash());
    }
    HttpUtil.setContentLength(resp, r.body().length);
    ctx.writeAndFlush(resp).addListener(ChannelFutureListener.CLOSE);
  }

  @Override
  public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
    LOG.debug("map outputs request connection failed", cause);
    ctx.fireExceptionCaught(cause);
  }
}
