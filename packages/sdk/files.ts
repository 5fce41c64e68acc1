// Shared with the builder (src/builds/pipeline): one walker for every deploy of a folder.
export * from '../shared/local-files';
