package benchres

import (
	"testing"

	"github.com/splitscope/splitscope/assets"
)

func TestMatchModel(t *testing.T) {
	p, err := assets.Load()
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ id, want string }{
		{"meta-llama/Meta-Llama-3-8B-Instruct", "llama-3-8b"},
		{"meta-llama/Meta-Llama-3-70B", "llama-3-70b"},
		{"/models/Meta-Llama-3-70B-Instruct/", "llama-3-70b"},
		{"meta-llama/Llama-2-7b-chat-hf", "llama-2-7b"},
		{"Qwen/Qwen3-32B", "qwen3-32b"},
		{"Qwen/Qwen3-30B-A3B", "qwen3-30b-a3b"},
		{"mistralai/Mixtral-8x7B-Instruct-v0.1", "mixtral-8x7b"},
		{"deepseek-ai/DeepSeek-V3", "deepseek-v3"},
		{"openai/gpt-oss-120b", "gpt-oss-120b"},
		{"google/gemma-3-27b-it", "gemma-3-27b"},
		{"llama-3-8b", "llama-3-8b"},
		// Another size, version or checkpoint is not guessed.
		{"meta-llama/Llama-3.1-8B-Instruct", ""},
		{"meta-llama/Llama-3.3-70B-Instruct", ""},
		{"deepseek-ai/DeepSeek-R1-Distill-Llama-8B", ""},
		{"Qwen/Qwen3-235B-A22B-FP8", ""},
		{"", ""},
		{"///", ""},
	} {
		a, ok := MatchModel(c.id, p.Models)
		if got := map[bool]string{true: a.ID}[ok]; got != c.want {
			t.Errorf("MatchModel(%q) = %q, want %q", c.id, got, c.want)
		}
	}
}
