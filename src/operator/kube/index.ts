/** Kubernetes API access shared by the operator and the control plane's k8s listener. */
export { loadKubeConfig } from "./config.js";
export { KubeError, isConflict, isNotFound, isTransient } from "./errors.js";
export { Informer, type InformerEvent, type InformerOptions } from "./informer.js";
export { collectionPath, objectPath, resourceType, type ResourceType } from "./resources.js";
export { APPLY_PATCH, JSON_PATCH, KubeRest, MERGE_PATCH, refOf, type KubeList, type KubeObject, type Ref, type RequestObserver, type Verb } from "./rest.js";
export { ALL_FEATURES, discoverCapabilities, parseVersion, sameFeatures, versionFeatures, type ClusterCapabilities, type ClusterFeatures, type ServerVersion } from "./capabilities.js";
export { jittered, nextBase, type BackoffPolicy } from "./backoff.js";
