package export

import (
	"maps"
	"strconv"
	"strings"

	"github.com/splitscope/splitscope/assets"
	"github.com/splitscope/splitscope/tui/learn"
)

// english holds every text the exports write, by key. Placeholders in braces ("{p}") are filled
// in by the renderers; a translation keeps them and may move them.
var english = map[string]string{
	// SVG: title and pipeline timeline.
	"svg.step":        "step time {t}",
	"svg.serve":       "serve time {t}",
	"pipe.heading":    "Pipeline timeline",
	"pipe.sub.train":  "One lane per pipeline stage. Each box is one micro-batch's forward (F) or backward (B, W) on that stage, numbered by micro-batch; gaps are idle time.",
	"pipe.sub.infer":  "One lane per pipeline stage. Each box is one engine step on that stage, with prompt chunks (P) or decode only (D); gaps are idle time.",
	"pipe.lane":       "S{stage} · GPUs {gpus}",
	"pipe.lane1":      "S{stage} · GPU {gpus}",
	"pipe.caption":    "{schedule} · p = {stages} · m = {micros}{v} · step {step} · bubble {sim} simulated, closed form {form} = {closed}",
	"pipe.caption.in": "serving · p = {stages} · {groups} · serve {step} · idle {sim} simulated, pipeline fill {form} = {closed}",
	"pipe.chunks":     " × v = {v} chunks",
	"n.stage":         "{n} stage",
	"n.stages":        "{n} stages",
	"n.micro":         "{n} micro-batch",
	"n.micros":        "{n} micro-batches",
	"n.group":         "{n} request",
	"n.groups":        "{n} requests",
	"pipe.none":       "No timeline: the scenario has no simulated step.",
	"pipe.folded":     "lanes labelled every {k} stages",
	"axis.time":       "time",

	// SVG: many stages, long timelines.
	"pipe.fold":          "lanes show one stage in {k} (S0, S{k}…)",
	"pipe.sub.train.agg": "One lane per pipeline stage. Each box is a run of consecutive forward (F) or backward (B, W) ops on that stage, aggregated as the note under the time axis says; gaps are idle time.",
	"pipe.sub.infer.agg": "One lane per pipeline stage. Each box is a run of consecutive engine steps on that stage, aggregated as the note under the time axis says; gaps are idle time.",
	"pipe.aggregated":    "Aggregated: {ops} ops drawn as {shapes} shapes. Each box holds consecutive ops of one kind; where runs narrower than {grain} px alternate, a box about {grain} px wide holds them all, each kind's band as tall as its share of the box's time (idle gaps under {gap} px included).",
	"num.sep":            ",",

	// SVG: tensor breakdown.
	"tensor.heading":         "Tensor parallelism: one layer on one GPU, to scale",
	"tensor.sub.train":       "t = {t} GPUs per TP group over {link} · training: forward and backward of one micro-batch through one layer",
	"tensor.sub.infer":       "t = {t} GPUs per TP group over {link} · inference: one decode step through one layer",
	"tensor.sub1.train":      "t = 1: no TP group · training: forward and backward of one micro-batch through one layer",
	"tensor.sub1.infer":      "t = 1: no TP group · inference: one decode step through one layer",
	"tensor.fwd":             "forward",
	"tensor.bwd":             "backward",
	"tensor.step":            "decode step",
	"tensor.share":           "TP communication: {layer} of the layer, {step} of the {what} ({tp} of {total})",
	"tensor.what.train":      "step",
	"tensor.what.infer":      "serve time",
	"tensor.ar":              "One all-reduce moves S = {sym} = {S} in {time}; the layer has {count}.",
	"tensor.count.train":     "{f} in forward and {b} in backward",
	"tensor.count.infer":     "{f} per token",
	"tensor.coll":            "It runs as {algo} on {group} over {link}: {by}.",
	"tensor.by.nccl":         "the algorithm and protocol NCCL picks for this size",
	"tensor.by.engine":       "the serving engine's own kernel, not NCCL",
	"tensor.group":           "{n} GPUs",
	"tensor.group.nodes":     "{n} GPUs in {nodes} nodes",
	"tensor.formula":         "{name}: T = {symbols}",
	"tensor.filled":          "= {numbers} = {result}",
	"tensor.note.simplified": "(simplified: the model's {model})",
	"tensor.tp1":             "TP = 1: no tensor-parallel communication; each GPU runs the whole layer.",
	"tensor.tp1.more":        "With t > 1 each GPU would compute 1/t of every weight matrix, then all-reduce its output: twice in forward, twice in backward.",
	"tensor.none":            "No layer detail in this result.",

	// Legend.
	"legend.pipeline": "Pipeline:",
	"legend.tensor":   "Tensor breakdown:",
	"legend.F":        "F  forward",
	"legend.B":        "B  backward",
	"legend.W":        "W  weight gradients",
	"legend.prefill":  "prefill",
	"legend.decode":   "decode step",
	"legend.idle":     "idle (bubble)",
	"legend.compute":  "compute",
	"legend.memory":   "memory-bound",
	"legend.comm":     "TP all-reduce",
	"legend.chunk":    "darker: odd chunk (interleaved)",
	"legend.chunkV":   "darker: chunk 1, the V's way back",
	"legend.reverse":  "darker: the other direction (fed in at the last stage)",

	// Segment labels of the cost model.
	"seg.attention":                   "attention",
	"seg.mlp":                         "mlp",
	"seg.all-reduce":                  "all-reduce",
	"seg.reduce-scatter + all-gather": "reduce-scatter + all-gather",
	"seg.all-gather (wgrad)":          "all-gather (wgrad)",
	"seg.mlp bwd":                     "mlp bwd",
	"seg.attention bwd":               "attention bwd",
	"seg.weight grads":                "weight grads",
	"seg.recompute":                   "recompute",

	// Markdown report.
	"md.title":        "splitscope report",
	"md.scenario":     "Scenario",
	"md.layout":       "Layout",
	"md.time.train":   "Step time",
	"md.time.infer":   "Serve time",
	"md.part":         "part",
	"md.time":         "time",
	"md.share":        "share",
	"md.total.train":  "step time (one optimizer step)",
	"md.total.infer":  "serve time (prefill and decode of all requests)",
	"md.compute":      "compute",
	"md.recompute":    "recompute",
	"md.tpcomm":       "TP communication",
	"md.epcomm":       "EP all-to-all",
	"md.ppcomm":       "PP communication",
	"md.dpcomm":       "DP communication (exposed)",
	"md.bubble":       "bubble",
	"md.optimizer":    "optimizer",
	"md.efficiency":   "Efficiency",
	"md.metric":       "metric",
	"md.value":        "value",
	"md.note":         "note",
	"md.bubble.note":  "closed form {closed}",
	"md.comm":         "exposed communication",
	"md.comm.note":    "share of the step",
	"md.mfu":          "MFU",
	"md.mfu.note":     "model FLOP/s per GPU over peak",
	"md.tflops":       "model FLOP/s per GPU",
	"md.tokens":       "tokens/s",
	"md.tokens.train": "trained tokens, all replicas",
	"md.tokens.infer": "generated tokens, all replicas",
	"md.inference":    "Inference",
	"md.ttft":         "TTFT",
	"md.ttft.note":    "mean time to first token",
	"md.tpot":         "TPOT",
	"md.tpot.note":    "mean time per output token",
	"md.memory":       "Memory per GPU (fullest GPU: stage {stage})",
	"md.weights":      "weights",
	"md.gradients":    "gradients",
	"md.optstate":     "optimizer state",
	"md.activations":  "activations",
	"md.kv":           "KV cache",
	"md.reserved":     "reserved",
	"md.total":        "total",
	"md.fits":         "fits",
	"md.over":         "over by {over}",
	"md.capacity":     "of {cap} ({pct}): {verdict}",
	"md.bytes":        "bytes",
	"md.warnings":     "Warnings",
	"md.nowarnings":   "None.",

	"md.layout.tp":       "TP (tensor parallel)",
	"md.layout.pp":       "PP (pipeline stages)",
	"md.layout.dp":       "DP (data parallel)",
	"md.layout.schedule": "schedule",
	"md.layout.chunks":   "chunks per GPU (v)",
	"md.layout.b":        "micro-batch size (b)",
	"md.layout.m":        "micro-batches (m)",

	// Markdown: the TP-vs-PP table.
	"cmp.heading":      "Tensor vs pipeline parallelism",
	"cmp.intro":        "The same GPUs and workload split by the search into {n} layouts: the fastest with tensor parallelism alone, the fastest with pipeline parallelism alone, the fastest of all and, when that is not a hybrid, the fastest hybrid (TP and PP). ★ marks the best value of a row among the layouts that fit; a layout that does not fit says why instead of its numbers.",
	"cmp.layout":       "layout TP × PP × DP",
	"cmp.split":        "what is split",
	"cmp.comm":         "communication per layer",
	"cmp.latency":      "latency: step time",
	"cmp.ttft":         "latency: TTFT",
	"cmp.tpot":         "latency: TPOT",
	"cmp.throughput":   "throughput",
	"cmp.interconnect": "interconnect needs",
	"cmp.memory":       "memory per GPU",
	"cmp.fits":         "fits",
	"cmp.none":         "no comparison: {err}",
	"cmp.cross":        "Throughput (tokens/s) as the micro-batch count m grows, everything else fixed; — where the layout is invalid or does not fit:",
	"cmp.cross.m":      "m",
	"cmp.cross.sched":  "PP only runs {schedule} in this sweep: its interleaved schedule needs m to be a multiple of PP.",

	// The sequence sweep, TP vs CP vs both (when the explorer made it).
	"seq.intro":    "Sequence sweep, TP vs CP vs both, at a global batch of {batch} sequences: at each length the fastest layout without context parallelism (CP 1), with CP at the least TP that fits, and with both TP and CP above 1, the training knobs as the scenario's (those on auto free). A cell is the layout, its throughput and its memory per GPU, ★ the most tokens/s; where none fits, the closest layout and the memory it needs; — where search tries no such layout (CP from 8K-token sequences).",
	"seq.len":      "sequence",
	"seq.fam.nocp": "TP, no CP",
	"seq.fam.cp":   "CP, least TP",
	"seq.fam.both": "TP × CP",
	"seq.needs":    "✗ needs {mem}",

	"cmp.split.tp":   "the matrices of every layer: each GPU holds 1/{t} of each weight matrix",
	"cmp.split.pp":   "runs of whole layers: each stage holds {lp} of the {L} layers",
	"cmp.split.both": "both: the matrices across TP groups of {t}, runs of {lp} layers across {p} stages",
	"cmp.split.none": "nothing: every GPU holds the whole model",

	"cmp.comm.tp.train":  "{f} all-reduces of b·s·h forward + {b} backward, each {S} in {time} ({algo})",
	"cmp.comm.tp.infer":  "{f} all-reduces of b·h per token, each {S} in {time} ({algo})",
	"cmp.comm.pp.train":  "none inside a stage; one send of b·s·h per stage boundary, {S} in {time} (and its gradient back)",
	"cmp.comm.pp.infer":  "none inside a stage; one send of b·h per token per stage boundary, {S} in {time}",
	"cmp.comm.pp2.train": "plus one send of b·s·h/t from each GPU per stage boundary, {S} in {time} (and its gradient back)",
	"cmp.comm.pp2.infer": "plus one send of b·h/t per token from each GPU per stage boundary, {S} in {time}",
	"cmp.comm.none":      "none",
	"cmp.comm.step":      "per step on the critical stage: TP {tp}, PP {pp}",

	"cmp.ic.tp":   "NVLink-class bandwidth: the all-reduces sit inside every layer on the critical path (TP comm {share} of the step over {link})",
	"cmp.ic.pp":   "tolerant of PCIe or the network: one point-to-point send per stage boundary (PP comm {share} of the step)",
	"cmp.ic.both": "TP all-reduces over {intra} ({tshare} of the step), PP sends over {pplink} ({pshare} of the step)",
	"cmp.ic.none": "only the data-parallel gradient sync",

	"cmp.tokens":   "{n} tokens/s",
	"cmp.yes":      "✓ yes",
	"cmp.no":       "✗ {reason}",
	"cmp.missing":  "—",
	"cmp.noreport": "not evaluated",

	"name.TP only":           "TP only",
	"name.PP only":           "PP only",
	"name.best hybrid":       "best hybrid",
	"name.EP (attention DP)": "EP (attention DP)",
	"name.disaggregated":     "disaggregated: {split}",
	"name.best":              "best: {split}",
	"name.best.same":         "best (= {name})",
	"name.best.none":         "best: none fits",
	// Serving's pipeline sends and closed form (one number per quantity): the sends fall in the
	// idle time, and the closed form only where it applies.
	"md.ppsends":           "PP sends (in the bubble: a stage waits for its batch)",
	"md.bubble.note.infer": "closed form {closed}: fewer requests than stages",
	"cmp.comm.step.infer":  "over the run on the busiest stage: TP {tp}; the PP sends fall in its idle time",
	"cmp.ic.both.infer":    "TP all-reduces over {intra} ({tshare} of the serve time), PP sends over {pplink} (in the idle time)",
	"cmp.ic.pp.infer":      "tolerant of PCIe or the network: one point-to-point send per stage boundary, its time in the idle time",
	"pipe.caption.in.full": "serving · p = {stages} · {groups} · serve {step} · idle {sim} simulated",
}

// french is english in French. Its numbers are written the French way (Numbers): decimal comma,
// "18,5 %", Gio and Go.
var french = map[string]string{
	"svg.step":        "durée d'une étape {t}",
	"svg.serve":       "durée de service {t}",
	"pipe.heading":    "Chronologie du pipeline",
	"pipe.sub.train":  "Une ligne par étage du pipeline. Chaque bloc est la passe avant (F) ou arrière (B, W) d'un micro-lot sur cet étage, numérotée par micro-lot ; les vides sont du temps inactif.",
	"pipe.sub.infer":  "Une ligne par étage du pipeline. Chaque bloc est un pas du moteur sur cet étage, avec des morceaux de prompt (P) ou du seul décodage (D) ; les vides sont du temps inactif.",
	"pipe.lane":       "S{stage} · GPU {gpus}",
	"pipe.lane1":      "S{stage} · GPU {gpus}",
	"pipe.caption":    "{schedule} · p = {stages} · m = {micros}{v} · étape {step} · bulle {sim} simulée, forme close {form} = {closed}",
	"pipe.caption.in": "service · p = {stages} · {groups} · service {step} · inactivité {sim} simulée, remplissage du pipeline {form} = {closed}",
	"pipe.chunks":     " × v = {v} tronçons",
	"n.stage":         "{n} étage",
	"n.stages":        "{n} étages",
	"n.micro":         "{n} micro-lot",
	"n.micros":        "{n} micro-lots",
	"n.group":         "{n} requête",
	"n.groups":        "{n} requêtes",
	"pipe.none":       "Pas de chronologie : le scénario n'a pas d'étape simulée.",
	"pipe.folded":     "étiquette tous les {k} étages",
	"axis.time":       "temps",

	"pipe.fold":          "une ligne pour un étage sur {k} (S0, S{k}…)",
	"pipe.sub.train.agg": "Une ligne par étage du pipeline. Chaque bloc est une suite de passes avant (F) ou arrière (B, W) consécutives sur cet étage, agrégées comme l'indique la note sous l'axe du temps ; les vides sont du temps inactif.",
	"pipe.sub.infer.agg": "Une ligne par étage du pipeline. Chaque bloc est une suite de pas du moteur consécutifs sur cet étage, agrégés comme l'indique la note sous l'axe du temps ; les vides sont du temps inactif.",
	"pipe.aggregated":    "Agrégé : {ops} opérations dessinées en {shapes} formes. Chaque bloc regroupe des opérations consécutives d'un même type ; là où des suites de moins de {grain} px alternent, un bloc d'environ {grain} px les regroupe toutes, la hauteur de chaque bande étant la part de son type dans la durée du bloc (vides de moins de {gap} px compris).",
	"num.sep":            "\u202f",

	"tensor.heading":         "Parallélisme de tenseurs : une couche sur un GPU, à l'échelle",
	"tensor.sub.train":       "t = {t} GPU par groupe TP sur {link} · entraînement : passes avant et arrière d'un micro-lot dans une couche",
	"tensor.sub.infer":       "t = {t} GPU par groupe TP sur {link} · inférence : une étape de décodage dans une couche",
	"tensor.sub1.train":      "t = 1 : pas de groupe TP · entraînement : passes avant et arrière d'un micro-lot dans une couche",
	"tensor.sub1.infer":      "t = 1 : pas de groupe TP · inférence : une étape de décodage dans une couche",
	"tensor.fwd":             "avant",
	"tensor.bwd":             "arrière",
	"tensor.step":            "décodage",
	"tensor.share":           "Communication TP : {layer} de la couche, {step} de la {what} ({tp} sur {total})",
	"tensor.what.train":      "durée de l'étape",
	"tensor.what.infer":      "durée de service",
	"tensor.ar":              "Un all-reduce transfère S = {sym} = {S} en {time} ; la couche en compte {count}.",
	"tensor.count.train":     "{f} en avant et {b} en arrière",
	"tensor.count.infer":     "{f} par jeton",
	"tensor.coll":            "Il s'exécute en {algo} sur {group} par {link} : {by}.",
	"tensor.by.nccl":         "l'algorithme et le protocole que NCCL choisit pour cette taille",
	"tensor.by.engine":       "le noyau propre au moteur de service, pas NCCL",
	"tensor.group":           "{n} GPU",
	"tensor.group.nodes":     "{n} GPU sur {nodes} nœuds",
	"tensor.formula":         "{name} : T = {symbols}",
	"tensor.filled":          "= {numbers} = {result}",
	"tensor.note.simplified": "(simplifié : le modèle donne {model})",
	"tensor.tp1":             "TP = 1 : aucune communication de parallélisme de tenseurs ; chaque GPU calcule toute la couche.",
	"tensor.tp1.more":        "Avec t > 1, chaque GPU calculerait 1/t de chaque matrice de poids, puis ferait un all-reduce de sa sortie : deux fois en avant, deux fois en arrière.",
	"tensor.none":            "Pas de détail de couche dans ce résultat.",

	"legend.pipeline": "Pipeline :",
	"legend.tensor":   "Détail tensoriel :",
	"legend.F":        "F  passe avant",
	"legend.B":        "B  passe arrière",
	"legend.W":        "W  gradients des poids",
	"legend.prefill":  "préremplissage",
	"legend.decode":   "étape de décodage",
	"legend.idle":     "inactif (bulle)",
	"legend.compute":  "calcul",
	"legend.memory":   "limité par la mémoire",
	"legend.comm":     "all-reduce TP",
	"legend.chunk":    "plus foncé : tronçon impair (entrelacé)",
	"legend.chunkV":   "plus foncé : tronçon 1, le retour du V",
	"legend.reverse":  "plus foncé : l'autre sens (entré par le dernier étage)",

	"seg.attention":                   "attention",
	"seg.mlp":                         "MLP",
	"seg.all-reduce":                  "all-reduce",
	"seg.reduce-scatter + all-gather": "reduce-scatter + all-gather",
	"seg.all-gather (wgrad)":          "all-gather (grad. poids)",
	"seg.mlp bwd":                     "MLP arr.",
	"seg.attention bwd":               "attention arr.",
	"seg.weight grads":                "grad. des poids",
	"seg.recompute":                   "recalcul",

	"md.title":        "Rapport splitscope",
	"md.scenario":     "Scénario",
	"md.layout":       "Découpage",
	"md.time.train":   "Durée d'une étape",
	"md.time.infer":   "Durée de service",
	"md.part":         "poste",
	"md.time":         "durée",
	"md.share":        "part",
	"md.total.train":  "durée d'une étape (une mise à jour de l'optimiseur)",
	"md.total.infer":  "durée de service (préremplissage et décodage de toutes les requêtes)",
	"md.compute":      "calcul",
	"md.recompute":    "recalcul",
	"md.tpcomm":       "communication TP",
	"md.epcomm":       "all-to-all EP",
	"md.ppcomm":       "communication PP",
	"md.dpcomm":       "communication DP (exposée)",
	"md.bubble":       "bulle",
	"md.optimizer":    "optimiseur",
	"md.efficiency":   "Efficacité",
	"md.metric":       "mesure",
	"md.value":        "valeur",
	"md.note":         "remarque",
	"md.bubble.note":  "forme close {closed}",
	"md.comm":         "communication exposée",
	"md.comm.note":    "part de l'étape",
	"md.mfu":          "MFU",
	"md.mfu.note":     "FLOP/s du modèle par GPU rapportés au pic",
	"md.tflops":       "FLOP/s du modèle par GPU",
	"md.tokens":       "jetons/s",
	"md.tokens.train": "jetons entraînés, toutes les répliques",
	"md.tokens.infer": "jetons générés, toutes les répliques",
	"md.inference":    "Inférence",
	"md.ttft":         "TTFT",
	"md.ttft.note":    "délai moyen jusqu'au premier jeton",
	"md.tpot":         "TPOT",
	"md.tpot.note":    "durée moyenne par jeton de sortie",
	"md.memory":       "Mémoire par GPU (GPU le plus plein : étage {stage})",
	"md.weights":      "poids",
	"md.gradients":    "gradients",
	"md.optstate":     "état de l'optimiseur",
	"md.activations":  "activations",
	"md.kv":           "cache KV",
	"md.reserved":     "réservé",
	"md.total":        "total",
	"md.fits":         "tient",
	"md.over":         "dépasse de {over}",
	"md.capacity":     "sur {cap} ({pct}) : {verdict}",
	"md.bytes":        "octets",
	"md.warnings":     "Avertissements",
	"md.nowarnings":   "Aucun.",

	"md.layout.tp":       "TP (parallélisme de tenseurs)",
	"md.layout.pp":       "PP (étages du pipeline)",
	"md.layout.dp":       "DP (parallélisme de données)",
	"md.layout.schedule": "ordonnancement",
	"md.layout.chunks":   "tronçons par GPU (v)",
	"md.layout.b":        "taille de micro-lot (b)",
	"md.layout.m":        "micro-lots (m)",

	"cmp.heading":      "Parallélisme de tenseurs ou de pipeline",
	"cmp.intro":        "Les mêmes GPU et la même charge, découpés par la recherche de {n} façons : le plus rapide avec le parallélisme de tenseurs seul, le plus rapide avec le parallélisme de pipeline seul, le plus rapide de tous et, s'il n'est pas hybride, le plus rapide des hybrides (TP et PP). ★ marque la meilleure valeur d'une ligne parmi les découpages qui tiennent en mémoire ; un découpage qui ne tient pas dit pourquoi au lieu de donner ses chiffres.",
	"cmp.layout":       "découpage TP × PP × DP",
	"cmp.split":        "ce qui est découpé",
	"cmp.comm":         "communication par couche",
	"cmp.latency":      "latence : durée d'une étape",
	"cmp.ttft":         "latence : TTFT",
	"cmp.tpot":         "latence : TPOT",
	"cmp.throughput":   "débit",
	"cmp.interconnect": "besoins d'interconnexion",
	"cmp.memory":       "mémoire par GPU",
	"cmp.fits":         "tient en mémoire",
	"cmp.none":         "pas de comparaison : {err}",
	"cmp.cross":        "Débit (jetons/s) quand le nombre de micro-lots m augmente, tout le reste fixé ; — là où le découpage est invalide ou ne tient pas :",
	"cmp.cross.m":      "m",
	"cmp.cross.sched":  "PP seul tourne ici en {schedule} : son ordonnancement entrelacé demande que m soit un multiple de PP.",

	"seq.intro":    "Balayage de la longueur de séquence, TP, CP ou les deux, pour un lot global de {batch} séquences : à chaque longueur, le découpage le plus rapide sans parallélisme de contexte (CP 1), avec le CP au plus petit TP qui tient en mémoire, et avec TP et CP tous deux au-delà de 1, les réglages d'entraînement du scénario (ceux en auto libres). Une case donne le découpage, son débit et sa mémoire par GPU, ★ le plus de jetons/s ; là où aucun ne tient, le découpage le plus proche et la mémoire qu'il lui faudrait ; — là où la recherche n'essaie aucun tel découpage (le CP à partir de séquences de 8K jetons).",
	"seq.len":      "séquence",
	"seq.fam.nocp": "TP, sans CP",
	"seq.fam.cp":   "CP, TP minimal",
	"seq.fam.both": "TP × CP",
	"seq.needs":    "✗ il faudrait {mem}",

	"cmp.split.tp":   "les matrices de chaque couche : chaque GPU détient 1/{t} de chaque matrice de poids",
	"cmp.split.pp":   "des suites de couches entières : chaque étage détient {lp} des {L} couches",
	"cmp.split.both": "les deux : les matrices dans des groupes TP de {t}, des suites de {lp} couches sur {p} étages",
	"cmp.split.none": "rien : chaque GPU détient tout le modèle",

	"cmp.comm.tp.train":  "{f} all-reduces de b·s·h en avant + {b} en arrière, chacun {S} en {time} ({algo})",
	"cmp.comm.tp.infer":  "{f} all-reduces de b·h par jeton, chacun {S} en {time} ({algo})",
	"cmp.comm.pp.train":  "aucune dans un étage ; un envoi de b·s·h par frontière d'étage, {S} en {time} (et son gradient en retour)",
	"cmp.comm.pp.infer":  "aucune dans un étage ; un envoi de b·h par jeton et par frontière d'étage, {S} en {time}",
	"cmp.comm.pp2.train": "plus un envoi de b·s·h/t par GPU et par frontière d'étage, {S} en {time} (et son gradient en retour)",
	"cmp.comm.pp2.infer": "plus un envoi de b·h/t par jeton, par GPU et par frontière d'étage, {S} en {time}",
	"cmp.comm.none":      "aucune",
	"cmp.comm.step":      "par étape sur l'étage critique : TP {tp}, PP {pp}",

	"cmp.ic.tp":   "bande passante de classe NVLink : les all-reduces sont dans chaque couche, sur le chemin critique (communication TP {share} de l'étape sur {link})",
	"cmp.ic.pp":   "s'accommode de PCIe ou du réseau : un envoi point à point par frontière d'étage (communication PP {share} de l'étape)",
	"cmp.ic.both": "all-reduces TP sur {intra} ({tshare} de l'étape), envois PP sur {pplink} ({pshare} de l'étape)",
	"cmp.ic.none": "seulement la synchronisation des gradients entre répliques",

	"cmp.tokens":   "{n} jetons/s",
	"cmp.yes":      "✓ oui",
	"cmp.no":       "✗ {reason}",
	"cmp.missing":  "—",
	"cmp.noreport": "non évalué",

	"name.TP only":           "TP seul",
	"name.PP only":           "PP seul",
	"name.best hybrid":       "meilleur hybride",
	"name.EP (attention DP)": "EP (attention en DP)",
	"name.disaggregated":     "désagrégé : {split}",
	"name.best":              "meilleur : {split}",
	"name.best.same":         "meilleur (= {name})",
	"name.best.none":         "meilleur : aucun ne tient",
	// Serving's pipeline sends and closed form (one number per quantity).
	"md.ppsends":           "envois PP (dans la bulle : un étage attend son lot)",
	"md.bubble.note.infer": "forme close {closed} : moins de requêtes que d'étages",
	"cmp.comm.step.infer":  "sur tout le service, à l'étage le plus chargé : TP {tp} ; les envois PP tombent dans son temps d'attente",
	"cmp.ic.both.infer":    "all-reduces TP sur {intra} ({tshare} de la durée de service), envois PP sur {pplink} (dans le temps d'attente)",
	"cmp.ic.pp.infer":      "s'accommode de PCIe ou du réseau : un envoi point à point par frontière d'étage, son temps dans le temps d'attente",
	"pipe.caption.in.full": "service · p = {stages} · {groups} · service {step} · inactivité {sim} simulée",
}

// Texts returns the export texts in a language: French for "fr" (and "fr_FR.UTF-8", "fr-CA"…),
// English otherwise. Keys missing from a translation fall back to English. The map is a copy.
func Texts(lang string) map[string]string {
	out := maps.Clone(english)
	if isFrench(lang) {
		maps.Copy(out, french)
	}
	return out
}

func isFrench(lang string) bool {
	l := strings.ToLower(strings.TrimSpace(lang))
	return l == "fr" || strings.HasPrefix(l, "fr_") || strings.HasPrefix(l, "fr-") || strings.HasPrefix(l, "fr.")
}

// texts looks keys up and fills placeholders in, and writes numbers as the language does.
type texts struct {
	m    map[string]string
	nums func(string) string // the language's number format (Numbers)
}

// newTexts is Texts(lang) with the overrides on top.
func newTexts(lang string, overrides map[string]string) texts {
	t := Texts(lang)
	maps.Copy(t, overrides)
	return texts{m: t, nums: Numbers(lang)}
}

// get is the text of key with each "{name}" of kv (name, value, name, value…) replaced, its
// numbers written as the language writes them; a missing key reads as the key itself, so a gap
// shows instead of vanishing.
func (t texts) get(key string, kv ...string) string {
	s, ok := t.m[key]
	if !ok {
		s = key
	}
	if len(kv) == 0 {
		return s
	}
	pairs := make([]string, 0, len(kv))
	for i := 0; i+1 < len(kv); i += 2 {
		pairs = append(pairs, "{"+kv[i]+"}", kv[i+1])
	}
	return t.num(strings.NewReplacer(pairs...).Replace(s))
}

// num writes the numbers of s as the language does: "4,67 s", "18,5 %", "72,0 Gio" in French.
func (t texts) num(s string) string {
	if t.nums == nil {
		return s
	}
	return t.nums(s)
}

// Numbers is how an export in lang writes its numbers: the Learn tab's format for that language
// (tui/learn's Texts.Numbers, set by the numbers.* keys of assets/text/<lang>.yaml), so that the
// French export writes "4,67 s", "18,5 %", "72,0 Gio", "450 Go/s" as the French teaching texts
// do; English, and any language without a number format, as the renderers print them.
func Numbers(lang string) func(string) string {
	same := func(s string) string { return s }
	if !isFrench(lang) {
		return same
	}
	src, err := assets.Texts("fr")
	if err != nil {
		return same
	}
	return learn.NewTexts(src).Numbers
}

// count is "1 stage" or "4 stages": the text of key (n == 1) or key+"s", n filled in.
func (t texts) count(key string, n int) string {
	if n != 1 {
		key += "s"
	}
	return t.get(key, "n", strconv.Itoa(n))
}

// seg translates a cost-model segment label, or keeps it.
func (t texts) seg(label string) string {
	if s, ok := t.m["seg."+label]; ok {
		return s
	}
	return label
}
