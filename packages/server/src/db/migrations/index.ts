import * as initial from './001-initial.js';
import * as apiKeys from './002-api-keys.js';
import * as usage from './003-usage.js';
import * as nameOrder from './004-name-order-index.js';
import * as authThrottle from './005-auth-throttle.js';
import * as storedBytes from './006-stored-bytes.js';
import * as graphEngine from './007-graph-engine.js';
import * as accountCounters from './008-account-counters.js';
import * as billing from './009-billing.js';
import * as graphReferences from './010-graph-references.js';
import * as searchIndexes from './011-search-indexes.js';
import * as changeLogRetention from './012-change-log-retention.js';
import * as metadataOrder from './013-metadata-order.js';
import * as accountDeletion from './014-account-deletion.js';
import * as typeLists from './016-type-lists.js';
import * as subscriptionReads from './015-subscription-reads.js';
import * as exportLeases from './017-export-leases.js';
import * as recallTerms from './018-recall-terms.js';
import * as embeddings from './019-embeddings.js';
import * as entityPages from './020-entity-pages.js';
import * as oauth from './021-oauth.js';

/** Every migration, in order. Names are permanent: add new ones at the end. */
export const migrations: { name: string; sql: string }[] = [
  { name: '001-initial', sql: initial.sql },
  { name: '002-api-keys', sql: apiKeys.sql },
  { name: '003-usage', sql: usage.sql },
  { name: '004-name-order-index', sql: nameOrder.sql },
  { name: '005-auth-throttle', sql: authThrottle.sql },
  { name: '006-stored-bytes', sql: storedBytes.sql },
  { name: '007-graph-engine', sql: graphEngine.sql },
  { name: '008-account-counters', sql: accountCounters.sql },
  { name: '009-billing', sql: billing.sql },
  { name: '010-graph-references', sql: graphReferences.sql },
  { name: '011-search-indexes', sql: searchIndexes.sql },
  { name: '012-change-log-retention', sql: changeLogRetention.sql },
  { name: '013-metadata-order', sql: metadataOrder.sql },
  { name: '014-account-deletion', sql: accountDeletion.sql },
  { name: '015-subscription-reads', sql: subscriptionReads.sql },
  { name: '016-type-lists', sql: typeLists.sql },
  { name: '017-export-leases', sql: exportLeases.sql },
  { name: '018-recall-terms', sql: recallTerms.sql },
  { name: '019-embeddings', sql: embeddings.sql },
  { name: '020-entity-pages', sql: entityPages.sql },
  { name: '021-oauth', sql: oauth.sql },
];
