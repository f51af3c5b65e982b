// The in-page half of flowstate.browser.chromium: one RTCPeerConnection per page, driven
// by page.evaluate from Python. The sender page carries the video transceivers and the
// data-channel writers and samples getStats; the receiver page answers and counts the
// bytes it receives. No signalling server: Python carries the whole SDP (after ICE
// gathering completes) between the two pages (REAL-CHROMIUM.md, "A path that works").
// Field names in comments are those of W3C webrtc-stats (https://w3c.github.io/webrtc-stats/).
"use strict";

// Greedy writer: keep bufferedAmount near 1 MB with 16 KB messages, refilled from
// onbufferedamountlow (REAL-CHROMIUM.md, "Media and data"). Chromium closes a channel
// whose buffer passes 16 MB, so the writer must never simply write in a loop.
const MESSAGE_BYTES = 16 * 1024;
const HIGH_WATER_BYTES = 1024 * 1024;
const LOW_WATER_BYTES = HIGH_WATER_BYTES - 256 * 1024;
// Paced writer: a token bucket refilled every tick, messages of about one tick's worth
// (so a slow flow is not 16 KB bursts), never above HIGH_WATER_BYTES buffered (an
// application that writes at a rate does not queue without bound when the path is slower).
const PACE_TICK_MS = 10;
const PACED_MIN_MESSAGE_BYTES = 1000;

const state = {
  pc: null,
  camera: null,          // the fake-camera track; each video flow sends a clone of it
  videos: new Map(),     // flow name -> {transceiver, track}
  channels: new Map(),   // flow name -> {dc, writer stop function or null, received bytes}
  samples: [],
  statsTimer: null,
  coupler: null,         // js/flowstate-coupling's Coupler when the run couples (--coupling web-api)
  paced: new Map(),      // flow name -> its PacedChannel under the coupler
  frames: [],            // receiver: one row per requestVideoFrameCallback (renderRemote)
};

function rejectAfter(ms, what) {
  return new Promise((_, reject) => setTimeout(() => reject(new Error(`${what} took more than ${ms} ms`)), ms));
}

// VP8 first: the papers' media flow and the codec REAL-CHROMIUM.md measured. Only the
// order changes; every codec stays offered.
function preferVp8(transceiver) {
  const codecs = RTCRtpSender.getCapabilities("video").codecs;
  const rank = (c) => (c.mimeType.toLowerCase() === "video/vp8" ? 0 : 1);
  transceiver.setCodecPreferences([...codecs].sort((a, b) => rank(a) - rank(b)));
}

// Both pages: the peer connection, the negotiated data channels (same ids on both sides,
// so no in-band DCEP), and on the sender the video transceivers (sendonly, no track yet)
// and the fake camera.
async function setup({ role, videos, datas, statsIntervalMs }) {
  state.pc = new RTCPeerConnection({ iceServers: [], bundlePolicy: "max-bundle" });
  datas.forEach((name, id) => {
    const dc = state.pc.createDataChannel(name, { negotiated: true, id, ordered: true });
    dc.binaryType = "arraybuffer";
    const channel = { dc, stop: null, received: 0 };
    dc.onmessage = (e) => { channel.received += e.data.byteLength; };
    state.channels.set(name, channel);
  });
  if (role === "sender") {
    for (const name of videos) {
      const transceiver = state.pc.addTransceiver("video", { direction: "sendonly" });
      preferVp8(transceiver);
      state.videos.set(name, { transceiver, track: null });
    }
    const stream = await navigator.mediaDevices.getUserMedia({ video: true, audio: false });
    state.camera = stream.getVideoTracks()[0];
  } else {
    state.pc.ontrack = (e) => { if (e.track.kind === "video") renderRemote(e.transceiver.mid, e.track); };
  }
  state.statsTimer = setInterval(role === "sender" ? sampleSender : sampleReceiver, statsIntervalMs);
}

// Receiver: each remote video track plays in a muted <video> element, as a call page
// shows it, so that frames are composited; requestVideoFrameCallback
// (https://wicg.github.io/video-rvfc/) then reports every frame presented for
// composition. Callbacks missed (a busy renderer) show as jumps in presentedFrames.
// Times are the page's performance clock turned into Unix seconds through
// performance.timeOrigin (both browsers run on one machine: one clock).
const VIDEO_TILE = { width: 320, height: 180 };

function renderRemote(mid, track) {
  const video = document.createElement("video");
  Object.assign(video, { muted: true, autoplay: true, playsInline: true, ...VIDEO_TILE });
  video.srcObject = new MediaStream([track]);
  document.body.appendChild(video);
  const unix = (ms) => (ms === undefined ? null : (performance.timeOrigin + ms) / 1000);
  const onFrame = (now, m) => {
    state.frames.push({
      mid,
      presented_frames: m.presentedFrames,
      callback_unix_s: unix(now),
      presentation_unix_s: unix(m.presentationTime),
      expected_display_unix_s: unix(m.expectedDisplayTime),
      capture_unix_s: unix(m.captureTime),
      receive_unix_s: unix(m.receiveTime),
      rtp_timestamp: orNull(m.rtpTimestamp),
      width: m.width,
      height: m.height,
    });
    video.requestVideoFrameCallback(onFrame);
  };
  video.requestVideoFrameCallback(onFrame);
  video.play().catch(() => {});  // autoplay of a muted element is allowed; play() only makes sure
}

async function gathered(timeoutMs) {
  const pc = state.pc;
  const complete = new Promise((resolve) => {
    if (pc.iceGatheringState === "complete") return resolve();
    pc.addEventListener("icegatheringstatechange", () => {
      if (pc.iceGatheringState === "complete") resolve();
    });
  });
  await Promise.race([complete, rejectAfter(timeoutMs, "ICE gathering")]);
  return pc.localDescription.sdp;
}

async function offer(timeoutMs) {
  await state.pc.setLocalDescription(await state.pc.createOffer());
  return gathered(timeoutMs);
}

async function answer(sdp, timeoutMs) {
  await state.pc.setRemoteDescription({ type: "offer", sdp });
  await state.pc.setLocalDescription(await state.pc.createAnswer());
  return gathered(timeoutMs);
}

async function accept(sdp) {
  await state.pc.setRemoteDescription({ type: "answer", sdp });
}

// Resolves once the transport is connected and every data channel is open; rejects as
// soon as ICE or DTLS fails, naming which.
async function connected(timeoutMs) {
  const pc = state.pc;
  const ready = () => pc.connectionState === "connected"
    && [...state.channels.values()].every((c) => c.dc.readyState === "open");
  const done = new Promise((resolve, reject) => {
    const check = () => {
      if (pc.connectionState === "failed") {
        reject(new Error(pc.iceConnectionState === "failed" ? "ICE failed" : "DTLS failed"));
      } else if (ready()) {
        resolve();
      }
    };
    pc.addEventListener("connectionstatechange", check);
    state.channels.forEach((c) => c.dc.addEventListener("open", check));
    check();
  });
  await Promise.race([done, rejectAfter(timeoutMs, "connecting")]);
}

async function startVideo(name, maxBitrateBps) {
  const video = state.videos.get(name);
  const track = state.camera.clone();
  await video.transceiver.sender.replaceTrack(track);
  if (video.track) video.track.stop();
  video.track = track;
  if (maxBitrateBps !== null) {
    // RTCRtpEncodingParameters.maxBitrate, also valid after negotiation (REAL-CHROMIUM.md).
    const params = video.transceiver.sender.getParameters();
    params.encodings[0].maxBitrate = maxBitrateBps;
    await video.transceiver.sender.setParameters(params);
  }
}

async function stopVideo(name) {
  const video = state.videos.get(name);
  await video.transceiver.sender.replaceTrack(null);
  if (video.track) video.track.stop();
  video.track = null;
}

function greedyWriter(dc) {
  const payload = new Uint8Array(MESSAGE_BYTES);
  const fill = () => {
    while (dc.readyState === "open" && dc.bufferedAmount < HIGH_WATER_BYTES) dc.send(payload);
  };
  dc.bufferedAmountLowThreshold = LOW_WATER_BYTES;
  dc.onbufferedamountlow = fill;
  fill();
  return () => { dc.onbufferedamountlow = null; };
}

function pacedWriter(dc, rateBps) {
  const tickBytes = (rateBps / 8) * (PACE_TICK_MS / 1000);
  const size = Math.round(Math.min(MESSAGE_BYTES, Math.max(PACED_MIN_MESSAGE_BYTES, tickBytes)));
  const payload = new Uint8Array(size);
  const depth = Math.max(2 * size, 2 * tickBytes);
  let tokens = size;
  let last = performance.now();
  const timer = setInterval(() => {
    const now = performance.now();
    tokens = Math.min(depth, tokens + (rateBps / 8) * ((now - last) / 1000));
    last = now;
    while (tokens >= size && dc.readyState === "open" && dc.bufferedAmount < HIGH_WATER_BYTES) {
      dc.send(payload);
      tokens -= size;
    }
  }, PACE_TICK_MS);
  return () => clearInterval(timer);
}

// Under the coupler a greedy application writes through its PacedChannel: the coupler's
// token bucket and bufferedAmountLowThreshold decide when; the writer only keeps a few
// chunks queued (chunkSize(): the pacing rate x 20 ms, 1-16 KiB).
function coupledWriter(paced) {
  paced.greedy = true;
  const fill = () => {
    while (paced.channel.readyState === "open" && paced.queuedBytes < 4 * paced.chunkSize()) {
      paced.send(new Uint8Array(paced.chunkSize()));
    }
  };
  fill();
  const timer = setInterval(fill, PACE_TICK_MS);
  return () => { clearInterval(timer); paced.greedy = false; };
}

function startData(name, rateBps) {
  const channel = state.channels.get(name);
  if (channel.stop) return;
  const paced = state.paced.get(name);
  if (paced && rateBps === null) channel.stop = coupledWriter(paced);
  else channel.stop = rateBps === null ? greedyWriter(channel.dc) : pacedWriter(channel.dc, rateBps);
}

// Couple the call's flows with js/flowstate-coupling (loaded into the page as
// window.flowstateCoupling): every intervalMs the Coupler reads getStats, runs the
// Web-API rule, sets each video sender's maxBitrate and paces the data channels. Each
// decision is kept as a "coupling" sample.
function startCoupling({ intervalMs, config, videos, datas }) {
  const { Coupler } = window.flowstateCoupling;
  const coupler = new Coupler({
    interval: intervalMs,
    config,
    onUpdate: ({ media, data, decision }) => {
      state.samples.push({
        t_unix_s: Date.now() / 1000, flow: "*", kind: "coupling",
        media: media.map((m, i) => ({ target_bps: m.target, sent_bps: m.sent, max_bitrate_bps: decision.mediaMax[i] })),
        data: data.map((d, j) => ({ sent_bps: d.sent, pacing_bps: Number.isFinite(decision.dataPacing[j]) ? decision.dataPacing[j] : null })),
        aggregate_bps: decision.aggregate, decrease: decision.decrease,
      });
    },
  });
  for (const v of videos) {
    const video = state.videos.get(v.name);
    coupler.addSender(state.pc, video.transceiver.sender, { priority: v.priority, maxBitrate: v.maxBitrate });
  }
  for (const d of datas) {
    state.paced.set(d.name, coupler.addChannel(state.channels.get(d.name).dc, { priority: d.priority }));
  }
  state.coupler = coupler;
  coupler.start();
}

// Stops writing; what is already in the buffer still drains (a data channel cannot
// take back a message once sent).
function stopData(name) {
  const channel = state.channels.get(name);
  if (channel.stop) channel.stop();
  channel.stop = null;
}

const orNull = (v) => (v === undefined ? null : v);

function videoSamples(t, report) {
  const outbound = new Map();      // mid -> outbound-rtp
  const remote = new Map();        // ssrc -> remote-inbound-rtp (the receiver's RTCP about it)
  report.forEach((s) => {
    if (s.type === "outbound-rtp" && s.kind === "video") outbound.set(s.mid, s);
    if (s.type === "remote-inbound-rtp") remote.set(s.ssrc, s);
  });
  const samples = [];
  state.videos.forEach((video, flow) => {
    const s = outbound.get(video.transceiver.mid) || {};
    const source = (s.mediaSourceId && report.get(s.mediaSourceId)) || {};
    const r = (s.ssrc !== undefined && remote.get(s.ssrc)) || {};
    samples.push({
      t_unix_s: t, flow, kind: "video",
      ssrc: orNull(s.ssrc),
      rtx_ssrc: orNull(s.rtxSsrc),                      // retransmissions' SSRC
      bytes_sent: orNull(s.bytesSent),                  // RTP payload bytes
      header_bytes_sent: orNull(s.headerBytesSent),     // RTP header and padding bytes
      packets_sent: orNull(s.packetsSent),
      retransmitted_bytes_sent: orNull(s.retransmittedBytesSent),
      target_bitrate_bps: orNull(s.targetBitrate),
      frame_width: orNull(s.frameWidth),
      frame_height: orNull(s.frameHeight),
      frames_per_second: orNull(s.framesPerSecond),
      quality_limitation_reason: orNull(s.qualityLimitationReason),
      // The encoder's frame counts and sizes (which rule sets the frame rate: vp8_frame_drop).
      frames_encoded: orNull(s.framesEncoded),
      frames_sent: orNull(s.framesSent),
      key_frames_encoded: orNull(s.keyFramesEncoded),
      huge_frames_sent: orNull(s.hugeFramesSent),
      frames_dropped: orNull(s.framesDropped),          // not in outbound-rtp today: null
      qp_sum: orNull(s.qpSum),                          // VP8: the bitstream's q index, 0-127
      total_encoded_bytes_target: orNull(s.totalEncodedBytesTarget),
      total_encode_time_s: orNull(s.totalEncodeTime),
      quality_limitation_durations: orNull(s.qualityLimitationDurations),
      quality_limitation_resolution_changes: orNull(s.qualityLimitationResolutionChanges),
      encoder_implementation: orNull(s.encoderImplementation),
      nack_count: orNull(s.nackCount),
      pli_count: orNull(s.pliCount),
      fir_count: orNull(s.firCount),
      // media-source: what the capturer delivered to the encoder (frames, rate, size).
      source_frames: orNull(source.frames),
      source_frames_per_second: orNull(source.framesPerSecond),
      source_width: orNull(source.width),
      source_height: orNull(source.height),
      rtt_s: orNull(r.roundTripTime),
      // ECN (Chromium 156 with RFC 8888 feedback; absent otherwise): RTP packets sent
      // ECT(1), and from the feedback those whose ECT(1) arrived bleached (Not-ECT)
      // and those reported lost.
      packets_sent_with_ect1: orNull(s.packetsSentWithEct1),
      packets_with_bleached_ect1_marking: orNull(r.packetsWithBleachedEct1Marking),
      packets_reported_as_lost: orNull(r.packetsReportedAsLost),
      sending: video.track !== null,
    });
  });
  return samples;
}

function transportSample(t, report) {
  let pair = {};
  report.forEach((s) => {
    // transport.selectedCandidatePairId names the pair in use (one with max-bundle).
    if (s.type === "transport" && s.selectedCandidatePairId) pair = report.get(s.selectedCandidatePairId) || {};
  });
  return {
    t_unix_s: t, flow: "*", kind: "transport",
    available_outgoing_bitrate_bps: orNull(pair.availableOutgoingBitrate),  // GCC's target
    current_rtt_s: orNull(pair.currentRoundTripTime),                       // from STUN
  };
}

function dataSamples(t, report) {
  const byLabel = new Map();
  report.forEach((s) => { if (s.type === "data-channel") byLabel.set(s.label, s); });
  const samples = [];
  state.channels.forEach((channel, flow) => {
    const s = byLabel.get(flow) || {};
    samples.push({
      t_unix_s: t, flow, kind: "data",
      bytes_sent: orNull(s.bytesSent),                  // message payload bytes
      messages_sent: orNull(s.messagesSent),
      buffered_amount: channel.dc.bufferedAmount,
      writing: channel.stop !== null,
    });
  });
  return samples;
}

// setInterval may fire while the previous getStats is still pending; skip that tick
// rather than pile up.
let sampling = false;
async function sampleSender() {
  if (sampling) return;
  sampling = true;
  try {
    const t = Date.now() / 1000;
    const report = await state.pc.getStats();
    state.samples.push(...videoSamples(t, report), transportSample(t, report), ...dataSamples(t, report));
  } finally {
    sampling = false;
  }
}

let receiving = false;
async function sampleReceiver() {
  const t = Date.now() / 1000;
  state.channels.forEach((channel, flow) => {
    state.samples.push({ t_unix_s: t, flow, bytes_received: channel.received });
  });
  // The video as received (inbound-rtp): FEC and retransmissions arrive here only
  // (how much of the video's bytes are ULPFEC: chromium_fec). Skipped while the last is pending.
  if (receiving || !state.pc) return;
  receiving = true;
  try {
    (await state.pc.getStats()).forEach((s) => {
      if (s.type !== "inbound-rtp" || s.kind !== "video") return;
      state.samples.push({
        t_unix_s: t, flow: "*", kind: "inbound-video", ssrc: orNull(s.ssrc), mid: orNull(s.mid),
        bytes_received: orNull(s.bytesReceived), header_bytes_received: orNull(s.headerBytesReceived),
        packets_received: orNull(s.packetsReceived), packets_lost: orNull(s.packetsLost),
        fec_packets_received: orNull(s.fecPacketsReceived), fec_bytes_received: orNull(s.fecBytesReceived),
        fec_packets_discarded: orNull(s.fecPacketsDiscarded),
        retransmitted_packets_received: orNull(s.retransmittedPacketsReceived),
        retransmitted_bytes_received: orNull(s.retransmittedBytesReceived),
        frames_received: orNull(s.framesReceived), frames_decoded: orNull(s.framesDecoded),
        key_frames_decoded: orNull(s.keyFramesDecoded), frames_dropped: orNull(s.framesDropped),
        frames_rendered: orNull(s.framesRendered),
        nack_count: orNull(s.nackCount), pli_count: orNull(s.pliCount),
        // ECN as received (Chromium 156 once ECN reception is on: RFC 8888 negotiated).
        packets_received_with_ect1: orNull(s.packetsReceivedWithEct1),
        packets_received_with_ce: orNull(s.packetsReceivedWithCe),
        // Frame timing and Chromium's own freeze and pause counters (W3C webrtc-stats
        // RTCInboundRtpStreamStats; libwebrtc counts freezes on the frames it hands to
        // the track: video_quality_observer2.cc).
        frames_per_second: orNull(s.framesPerSecond),
        frame_width: orNull(s.frameWidth), frame_height: orNull(s.frameHeight),
        freeze_count: orNull(s.freezeCount), total_freezes_duration_s: orNull(s.totalFreezesDuration),
        pause_count: orNull(s.pauseCount), total_pauses_duration_s: orNull(s.totalPausesDuration),
        total_inter_frame_delay_s: orNull(s.totalInterFrameDelay),
        total_squared_inter_frame_delay_s2: orNull(s.totalSquaredInterFrameDelay),
        jitter_buffer_delay_s: orNull(s.jitterBufferDelay),
        jitter_buffer_target_delay_s: orNull(s.jitterBufferTargetDelay),
        jitter_buffer_minimum_delay_s: orNull(s.jitterBufferMinimumDelay),
        jitter_buffer_emitted_count: orNull(s.jitterBufferEmittedCount),
        total_decode_time_s: orNull(s.totalDecodeTime),
        total_processing_delay_s: orNull(s.totalProcessingDelay),
        total_assembly_time_s: orNull(s.totalAssemblyTime),
        frames_assembled_from_multiple_packets: orNull(s.framesAssembledFromMultiplePackets),
      });
    });
  } finally {
    receiving = false;
  }
}

// flow name -> outbound-rtp ssrc, for the video flows that have one.
async function ssrcs() {
  const byMid = new Map();
  (await state.pc.getStats()).forEach((s) => {
    if (s.type === "outbound-rtp" && s.kind === "video") byMid.set(s.mid, s.ssrc);
  });
  const found = {};
  state.videos.forEach((video, flow) => {
    const ssrc = byMid.get(video.transceiver.mid);
    if (ssrc !== undefined) found[flow] = ssrc;
  });
  return found;
}

function takeSamples() {
  const taken = state.samples;
  state.samples = [];
  return taken;
}

function takeFrames() {
  const taken = state.frames;
  state.frames = [];
  return taken;
}

function close() {
  clearInterval(state.statsTimer);
  if (state.coupler) state.coupler.stop();
  state.channels.forEach((_, name) => stopData(name));
  if (state.pc) state.pc.close();
}

window.flowstate = {
  setup, offer, answer, accept, connected, startVideo, stopVideo, startData, stopData,
  startCoupling, ssrcs, takeSamples, takeFrames, close,
};
