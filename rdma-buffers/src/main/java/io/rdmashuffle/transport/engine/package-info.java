/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
/**
 * Building blocks of a transport's threads and I/O engines that do not depend on one transport: the
 * one way to run a loop thread ({@link io.rdmashuffle.transport.engine.Agent} run by an {@link
 * io.rdmashuffle.transport.engine.AgentRunner}, errors to a {@link
 * io.rdmashuffle.transport.engine.CountedErrorHandler}; the connection server's accept and I/O
 * threads and the verbs engine and RDMA-CM threads all run so), idle strategies, the table of
 * posted work requests of one connection ({@link io.rdmashuffle.transport.engine.WorkRequestRing}),
 * and a table that finds a connection from the key carried in a work request id ({@link
 * io.rdmashuffle.transport.engine.ConnectionTable}).
 *
 * <p>May import: io.rdmashuffle.metrics, io.rdmashuffle.transport. It knows no transport
 * implementation and no connection server: {@code transport.server}, {@code transport.tcp}, {@code
 * transport.verbs.engine} and {@code transport.verbs.disni} import it, nothing outside the
 * transport does.
 */
package io.rdmashuffle.transport.engine;
