package collective

// The model's constants. Each is physical (a latency of a protocol's step, a bandwidth a protocol
// or algorithm reaches, a chunk size of NCCL's) and carries its source; tags resolve in
// docs/references.md. The per-step latencies scale with the link's own α (model.Link.Latency,
// the LL step: 3 µs on NVLink and PCIe, 5 µs on InfiniBand), so a link preset or a calibration
// moves every protocol together.
const (
	// simpleHopFactor and simpleSyncFactor: a Simple step costs simpleHopFactor·α on top of its
	// transfer across the network, and never less than simpleSyncFactor·α in all (its handshake
	// round trip). Fitted on the 8×A100 NVLink sweep [SN §3.3]: 1.18 µs and 7.26 µs against α =
	// 3.0 µs (the flat 101 µs from 1 to 4 MiB is 14 steps × 7.26 µs); the 4×V100 PCIe switch
	// latencies [ISS sglang-V100#2] give 7.7 µs against α = 3.1 µs, the same ratio within 3%.
	simpleHopFactor  = 0.394
	simpleSyncFactor = 2.42

	// simpleHopTime: inside a node a Simple step's latency on top of its transfer is the
	// handshake's own work on the GPU (a fence, a flag written and polled), the same on any link,
	// unlike LL's step, which is the link's round trip (α). 1.18 µs on 8×A100 (0.394 of its 3 µs
	// α, fitted with the ramp [SN §3.3]); 8×MI300X's XGMI, whose LL step is 1 µs, pays 1.2–1.4 µs
	// a step between 2 and 16 MiB (a 20 µs intercept over 14 steps [AIS]), and 8×RTX 5090 on
	// PCIe about 2 µs (a 30 µs intercept from 2 to 32 MiB [AIK]).
	simpleHopTime = 1.182e-6

	// llBusFraction: LL moves 8 bytes of data per 16 written (data + flag), half the link's
	// bandwidth [NCCL tuning.cc: busBw × 0.5 for ring LL]; the 4×V100 PCIe sweep's LL slope
	// (5.3 GB/s busbw from 32 to 128 KiB) is half its Simple slope (12.4 GB/s) [ISS sglang-V100#2].
	// On NVLink LL is bound lower, by the channels NCCL opens for small messages: a measured
	// fact of the link's generation (model.Link.LLBandwidth: 23.6 GB/s on 8×A100, 120 on 8×H200).
	llBusFraction = 0.5

	// Simple's bandwidth ramp. NCCL opens as many channels as it takes to fill the link at
	// channelMaxBW each (9 on 8×A100's 240 GB/s bus, 2 on a PCIe 5 box's 43–50, 11 on 8×MI300X's
	// 327) and each channel cuts its share of a ring step into chunks, simpleChunksPerChannel of
	// them (between simpleMinChunk, 64 KiB, and simpleMaxChunk, NCCL_BUFFSIZE 4 MiB / NCCL_STEPS
	// 8 × ALLREDUCE_CHUNKSTEPS 4 = 2 MiB): chunks of S / (n · channels · 4.74). Each chunk pays a
	// fixed cost of simpleChunkOverheadFactor·α, a round of the link's own step latency, against
	// its channel's rate: a channel reaches c / (c + 0.78·α·rate) of its bandwidth. A link with
	// fewer channels cuts bigger chunks from the same message, and a link with a shorter step pays
	// less a chunk, so both reach their plateau sooner than NVLink: on 8×A100 (α 3 µs, 9 channels)
	// 97% at 2 MiB chunks, 51% at 64 KiB (at 512 MiB and below 22 MB); on 8×RTX 5090 (α 1.75 µs,
	// 2 channels) 68% at 64 KiB, 98% from 160 MB; on 8×MI300X (α 1 µs, 11 channels) 69% and 99%.
	// Fitted on the 8×A100 sweep [SN §3.3] (with the two Simple latencies and the link's
	// efficiency): mean error 2.9% from 1 MiB to 16 GiB, 0.5% below; that 2.353 µs a chunk is
	// 0.784 α is what carries to the other links, checked on 8×MI300X [AIS] (7.3% → 5.0% mean
	// from 1 MiB) and on PCIe boxes [AIK, TGK, RTXPRO] (their mid sizes 25–100% slow before).
	simpleMaxChunk            = 2 << 20
	simpleMinChunk            = 64 << 10
	simpleChunksPerChannel    = 42.7 / nvlinkChannels  // 4.744
	simpleChunkOverheadFactor = 2.353e-6 / nvlinkAlpha // 0.7843
	channelMaxBW              = 29.9e9

	// nvlinkAlpha and nvlinkChannels: the 8×A100 NVLink 3 fit's step latency (3 µs) and channel
	// count (9 of 29.9 GB/s on its 240 GB/s bus), in whose terms the ramp above was fitted (2.353 µs
	// a chunk, 42.7 chunks a step).
	nvlinkAlpha    = 3e-6
	nvlinkChannels = 9

	// LL128 (NCCL's prims_ll128.h): each 128-byte line a warp stores carries 120 bytes of data and
	// an 8-byte flag (NCCL_LL128_DATAELEMS / NCCL_LL128_LINEELEMS), so LL128 moves 120/128 of what
	// the link carries, with no handshake per step (the flag travels with the data, as LL's does).
	// Its step costs what NCCL's own table says an LL128 step costs against an LL step on the same
	// hop (ll128HopFactor), times the model's calibrated LL step α.
	ll128DataFraction = 120.0 / 128

	// ll128HopFactor: an LL128 step costs this many LL steps (α), inside a node and across the
	// network. Fitted on 8×A100 at 4 and 8 MiB, where every NCCL version runs LL128 (its table
	// ranks LL128 first from about 1.2–2 MB to 16–24 MB there): 101.5 and 133.5 µs are 14 steps
	// of 1.63 α (4.9 µs) plus the wire at 120/128 of the 240 GB/s bus (the slope between them,
	// 229 GB/s, is that 225 within 2%) [SN §3.3]. NCCL's own table puts an LL128 step between
	// LL's and Simple's on NVLink [tuning.cc hwLatencies]. Checked on 2 × 8 H100 over EFA,
	// where NCCL runs the tree's LL128 from 1 to about 30 MiB: its latency there, 2 × (7 NVLink
	// steps + 1 network step) of 1.63 α, is 114 µs, the sweep's intercept 110–130 µs [ADT].
	ll128HopFactor = 1.63

	// treeLL128BcastThreads: the share of a channel's threads that runs a tree's broadcast half
	// with LL and LL128, the rest reducing [NCCL all_reduce.h runTreeSplit: 70% reduce, 30%
	// broadcast]. LL128 is copied by the SMs, so the broadcast half moves at this share of what a
	// whole channel moves (treeLL128Rate).
	treeLL128BcastThreads = 0.3

	// NVLink SHARP, fitted on 8×H200 [SN, sweep sn-h200x8-allreduce-bench, NVLS from 2 MiB]:
	// t = nvlsLatency + nvlsFill · c / nvlsMaxChunk + S / (B · η), with NCCL's NVLS chunk c =
	// S / nvlsChunkDivisor between 16 KiB and its nvlsChunkSize of 128 KiB [NCCL enqueue.cc]: a
	// fixed 43 µs, a pipeline fill of 46 µs at full chunks, and η the link's NVLSEfficiency
	// (0.60 on H200: busbw 482 GB/s at 16 GiB, 107% of the 450 GB/s wire). Mean error 0.9% from
	// 2 MiB to 16 GiB.
	nvlsLatency      = 43.4e-6
	nvlsFill         = 46.4e-6
	nvlsChunkDivisor = 156
	nvlsMinChunk     = 16 << 10
	nvlsMaxChunk     = 128 << 10

	// p2pBusFraction: a send/recv between two GPUs of an NVSwitch node moves 195 GB/s on 8×A100,
	// 84% of what a ring collective's bus reaches there (233 GB/s): NCCL gives a peer fewer
	// channels than a ring [LIP, sweep lip-a100x8-sendrecv].
	p2pBusFraction = 0.84

	// treeBusFraction: a tree all-reduce across nodes reaches 92% of the network's bus bandwidth
	// [NCCL tuning.cc: busBw × .92 for tree all-reduce], and moves each byte up and down the
	// tree (algorithm bandwidth half the bus bandwidth).
	treeBusFraction = 0.92

	// Across nodes (multinode.go).

	// netSimpleFactor: a Simple step across the network costs this many LL steps (the link's α):
	// the data lands, the proxy polls its completion, flushes it to the GPU and raises the flag,
	// where LL's flags travel with the data. NCCL's own network latencies for the tree, 14 µs
	// Simple against 5.0 µs LL [NCCL tuning.cc: hwLatencies, network]; on 2 × 8 H100 over EFA the
	// NVLS+tree all-reduce of 2 MiB (147 µs, 55 µs of it NVLS) puts two Simple network steps at
	// about 2.6 α each (α = 14 µs) [ADT].
	netSimpleFactor = 2.8

	// ringWindowChunks: chunks a ring's channel keeps in flight on a connection: NCCL_STEPS (8)
	// buffer slots, ALLREDUCE_CHUNKSTEPS (4) of them per chunk [NCCL collectives.h]. A network
	// step's latency that a window of chunks does not cover slows every step of the ring.
	ringWindowChunks = 2
	ncclSteps        = 8

	// netStepBytes: a step of NCCL's Simple buffer, NCCL_BUFFSIZE 4 MiB / NCCL_STEPS 8: the chunk
	// of a tree (one step a chunk) and of a broadcast chain [NCCL enqueue.cc, init.cc].
	netStepBytes = 512 << 10

	// treeLLDivisor: NCCL's estimate of a tree's LL bus bandwidth, the tree's bus bandwidth over
	// 3.8 [NCCL tuning.cc]: LL moves 8 bytes of data in 16, and the tree's up and down halves
	// share each GPU's link.
	treeLLDivisor = 3.8

	// nvlsChannelsHopper and nvlsChannelsBlackwell: the channels NCCL gives NVLS and NVLS+tree
	// across nodes, 16 on Hopper and 32 on Blackwell [NCCL nvls.cc NVLS_NCHANNELS_SM90/SM100].
	nvlsChannelsHopper    = 16
	nvlsChannelsBlackwell = 32
)
