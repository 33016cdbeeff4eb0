module github.com/splitscope/splitscope

go 1.26
