/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.fetch;

/**
 * An event another thread hands to a fetcher's driver through its {@link SegmentFetcher} ({@link
 * SegmentFetcher#signal}): a locate call answered, a locate retry due. Typed, so the driver
 * dispatches by kind, never by casting what came through the queue.
 */
public sealed interface FetchSignal permits Locates.Call, Locates.Retry {}
