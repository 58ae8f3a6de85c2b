// Retrievers (BM25 through toolsearch's ToolIndex, embeddings from an OpenAI-compatible endpoint) and recall@k.
export { bm25Ranking, bm25Retriever, completeRanking, recallTable, toolText, type EmbeddedText, type RecallCell, type RetrievalRow, type Retriever } from './_retrieval.js';
export { cosine, cosineRanking, embeddingsRetriever, type EmbeddingsRetrieverOptions } from './_embeddings.js';
