package collective

// The model's constants. Each is physical (a latency of a protocol's step, a bandwidth a protocol
// or algorithm reaches, a chunk size of NCCL's) and carries its source; tags resolve in
// docs/references.md. The per-step latencies scale with the link's own α (model.Link.Latency,
// the LL step: 3 µs on NVLink and PCIe, 5 µs on InfiniBand), so a link preset or a calibration
// moves every protocol together.
const (
	// simpleHopFactor and simpleSyncFactor: a Simple step costs simpleHopFactor·α on top of its
	// transfer, and never less than simpleSyncFactor·α in all (its handshake round trip). Fitted
	// on the 8×A100 NVLink sweep [SN §3.3]: 1.18 µs and 7.26 µs against α = 3.0 µs (the flat
	// 101 µs from 1 to 4 MiB is 14 steps × 7.26 µs); the 4×V100 PCIe switch latencies [ISS
	// sglang-V100#2] give 7.7 µs against α = 3.1 µs, the same ratio within 3%.
	simpleHopFactor  = 0.394
	simpleSyncFactor = 2.42

	// llBusFraction: LL moves 8 bytes of data per 16 written (data + flag), half the link's
	// bandwidth [NCCL tuning.cc: busBw × 0.5 for ring LL]; the 4×V100 PCIe sweep's LL slope
	// (5.3 GB/s busbw from 32 to 128 KiB) is half its Simple slope (12.4 GB/s) [ISS sglang-V100#2].
	llBusFraction = 0.5
	// llBusCap: on NVLink, LL is bound by the few channels NCCL launches for small messages, not
	// the link: the 8×A100 sweep gains 19 µs per 256 KiB from 32 KiB to 512 KiB, a bus bandwidth
	// of 23.6 GB/s [SN §3.3]. Bytes/s.
	llBusCap = 23.6e9

	// Simple's bandwidth ramp. NCCL cuts each channel's share of a message into chunks of at most
	// simpleMaxChunk (NCCL_BUFFSIZE 4 MiB / NCCL_STEPS 8 × ALLREDUCE_CHUNKSTEPS 4 = 2 MiB)
	// and at least simpleMinChunk (64 KiB), about S / (ranks × simpleChunkDivisor) in between;
	// each chunk pays a fixed overhead of simpleChunkOverheadTime on its channel, which moves at
	// most channelMaxBW. So a channel reaches c / (c + overhead) of its bandwidth, the overhead in
	// bytes being its time at the channel's rate: on 8×A100 NVLink (8 channels of 29.9 GB/s) 97%
	// at 2 MiB chunks, 48% at 64 KiB. Fitted on the 8×A100 sweep [SN §3.3] (with the two Simple
	// latency factors and the link's efficiency): mean error 3.0% from 1 MiB to 16 GiB, 0.5%
	// below. On a PCIe switch one channel of 12.6 GB/s fills the link, and the same overhead time
	// costs less: the 4×V100 latencies stay within 16% [ISS sglang-V100#2].
	simpleMaxChunk          = 2 << 20
	simpleMinChunk          = 64 << 10
	simpleChunkDivisor      = 42.7
	simpleChunkOverheadTime = 2.353e-6
	channelMaxBW            = 29.9e9

	// NVLink SHARP. nvlsLatency: one NVLS operation's fixed cost, 25 µs [NCCL tuning.cc
	// hwLatencies NVLINK NVLS Simple]. nvlsEfficiency: the fraction of the per-GPU NVLink
	// bandwidth an NVLS all-reduce moves as algorithm bandwidth: 8×H200 reaches busbw 481 GB/s,
	// 107% of the 450 GB/s link [SN §2.1, §3.1], algbw 481 / 1.75 = 275 GB/s = 0.61 × 450.
	nvlsLatency    = 25e-6
	nvlsEfficiency = 0.61

	// treeBusFraction: a tree all-reduce across nodes reaches 92% of the network's bus bandwidth
	// [NCCL tuning.cc: busBw × .92 for tree all-reduce], and moves each byte up and down the
	// tree (algorithm bandwidth half the bus bandwidth).
	treeBusFraction = 0.92
)
