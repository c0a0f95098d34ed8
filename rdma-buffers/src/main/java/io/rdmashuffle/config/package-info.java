/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
/**
 * Every setting of the engine-neutral core declared once ({@link
 * io.rdmashuffle.config.ConfigEntry}, {@link io.rdmashuffle.config.RdmaShuffleConfig}, {@link
 * io.rdmashuffle.config.ServerConfig}), the schemas an engine reads them under, {@link
 * io.rdmashuffle.config.RdmaConf} that reads and checks them, and the process limits the serving
 * bounds derive from.
 *
 * <p>May import: none. The ground floor: any package may list it in its own May import line; it
 * names no Spark or Hadoop class.
 */
package io.rdmashuffle.config;
