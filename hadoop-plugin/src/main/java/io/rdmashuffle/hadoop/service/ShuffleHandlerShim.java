/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.hadoop.service;

import io.netty.channel.Channel;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPipeline;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.group.DefaultChannelGroup;
import io.netty.util.concurrent.GlobalEventExecutor;
import java.util.function.Supplier;
import org.apache.hadoop.mapred.ShuffleChannelHandler;
import org.apache.hadoop.mapred.ShuffleChannelHandlerContext;

/**
 * The one place that depends on how Hadoop's ShuffleHandler builds its Netty pipeline, so that our
 * map outputs requests are answered on the stock shuffle's port (the only address a reduce task
 * learns of a map). Written against Hadoop 3.4.2 and checked on 3.5.0 (the Netty 4 ShuffleHandler
 * of HADOOP-15327; 3.3 and older used Netty 3 and are not supported: {@link
 * io.rdmashuffle.hadoop.HadoopVersions} refuses them when the service class is loaded).
 *
 * <p>How: ShuffleHandler builds its pipeline in a fixed initializer, but gets the handlers' shared
 * state from the overridable {@code createHandlerContext()}; its {@code ShuffleChannelHandler} adds
 * every accepted channel to that state's {@code allChannels} group in {@code channelActive}, before
 * any request is read. We hand it a group whose {@code add} puts our handler in front of the stock
 * one, then adds the channel to the real group (which the service closes at stop). Our handler
 * answers only its own path and passes everything else on untouched.
 */
final class ShuffleHandlerShim {
  private ShuffleHandlerShim() {}

  /**
   * A copy of the stock handler context whose channel group inserts {@code ours} into every
   * accepted channel's pipeline.
   */
  static ShuffleChannelHandlerContext withOurHandler(
      ShuffleChannelHandlerContext stock, Supplier<ChannelHandler> ours) {
    ChannelGroup hooked = new InsertingGroup(stock.allChannels, ours);
    return new ShuffleChannelHandlerContext(
        stock.conf,
        stock.userRsrc,
        stock.secretManager,
        stock.pathCache,
        stock.indexCache,
        stock.metrics,
        hooked);
  }

  /** The port the stock handler context knows it listens on (set when the service started). */
  static int port(ShuffleChannelHandlerContext context) {
    return context.port;
  }

  static final String HANDLER_NAME = "rdmaShuffleMapOutputs";

  /**
   * Adds to the real group; its own set stays empty (ShuffleChannelHandler reads only its size, for
   * a log line about the connection limit).
   */
  private static final class InsertingGroup extends DefaultChannelGroup {
    private final ChannelGroup real;
    private final Supplier<ChannelHandler> ours;

    InsertingGroup(ChannelGroup real, Supplier<ChannelHandler> ours) {
      super(real.name() + "-rdma", GlobalEventExecutor.INSTANCE);
      this.real = real;
      this.ours = ours;
    }

    @Override
    public boolean add(Channel channel) {
      ChannelPipeline p = channel.pipeline();
      ChannelHandlerContext stock = p.context(ShuffleChannelHandler.class);
      if (stock != null && p.get(HANDLER_NAME) == null) {
        p.addBefore(stock.name(), HANDLER_NAME, ours.get());
      }
      return real.add(channel);
    }

    @Override
    public int size() {
      return real.size();
    }

    @Override
    public boolean equals(Object o) {
      return this == o;
    }

    @Override
    public int hashCode() {
      return System.identityHashCode(this);
    }
  }
}
