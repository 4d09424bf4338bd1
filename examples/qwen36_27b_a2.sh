#!/bin/bash
# Qwen3.6-27B W8A8 on one Atlas 800 A2 node (8 NPUs).
# Image: quay.io/ascend/vllm-ascend:v0.23.0
export PYTORCH_NPU_ALLOC_CONF=expandable_segments:True
export VLLM_USE_V1=1
export ASCEND_RT_VISIBLE_DEVICES=0,1,2,3

vllm serve /models/Qwen3.6-27B-w8a8 \
  --host 0.0.0.0 \
  --port 8000 \
  --tensor-parallel-size 8 \
  --served-model-name qwen3.6 \
  --max-num-seqs 32 \
  --max-model-len 266000 \
  --max-num-batched-tokens 16384 \
  --dtype float16 \
  --speculative-config '{"method": "qwen3_5_mtp", "num_speculative_tokens": 3, "enforce_eager": true}' \
  --compilation-config '{"cudagraph_mode": "FULL_DECODE_ONLY", "cudagraph_capture_sizes": [1, 8, 16]}' \
  --gpu-memory-utilization 0.90 &

curl http://127.0.0.1:8000/v1/completions \
  -H "Content-Type: application/json" \
  -d '{"model": "qwen3.5", "prompt": "The future of AI is", "max_tokens": 50}'
