/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
/**
 * The verbs READ engine without DiSNI: reading channels that post under their own lock, and the
 * agent that finds completions, enforces the read timeout and ends channels. It talks to the device
 * only through two small seams, {@link io.rdmashuffle.transport.verbs.engine.QueuePair} and {@link
 * io.rdmashuffle.transport.verbs.engine.CompletionQueue}: DiSNI implements them in {@code
 * transport.verbs.disni}, and unit tests implement them with fakes, so every step of the engine
 * (slots, in-order completion, late completions, timeouts, ending a channel, releasing READ targets
 * only when the queue pair can no longer write into them) runs on any host.
 *
 * <p>Classes here are defined by the application's class loader (not DiSNI's), so they may be named
 * from both sides.
 *
 * <p>May import: io.rdmashuffle.metrics, io.rdmashuffle.transport, io.rdmashuffle.transport.engine.
 * It names no DiSNI class and nothing of {@code transport.verbs.disni}; only {@code
 * transport.verbs.disni} imports it.
 */
package io.rdmashuffle.transport.verbs.engine;
