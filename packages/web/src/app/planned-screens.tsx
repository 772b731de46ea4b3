import { CreditCard, FileText, LayoutDashboard, Network, Share2, Shapes } from 'lucide-react';
import { useParams } from 'react-router';
import { PlannedScreen } from './planned-screen';

/*
 * Placeholders for the signed-in screens of later releases. Each is replaced
 * by its feature folder (src/features/<name>/) when that feature lands.
 */

export function DashboardScreen() {
  return (
    <PlannedScreen
      title="Knowledge Graph Dashboard"
      description="Monitor your AI memory platform activity and insights"
      icon={LayoutDashboard}
      contents={[
        'Totals for entities, relations, observations and API calls today',
        'Recent activity, day by day, updated live',
        'Your five most recently created entities',
        'Quick actions: create an entity, view the graph, search',
        'Current usage against your plan’s limits',
        'A usage overview with a link to billing details',
      ]}
    />
  );
}

export function EntitiesScreen() {
  return (
    <PlannedScreen
      title="Entity Management"
      description="Create, browse and edit the entities in your knowledge graph"
      icon={Shapes}
      contents={[
        'Search by text and filter by entity type',
        'A card for each entity with its type, observations and metadata',
        'Create and edit entities with observations and JSON metadata',
        'Delete entities after a confirmation',
      ]}
    />
  );
}

export function EntityDetailScreen() {
  const { entityId } = useParams();
  return (
    <PlannedScreen
      title="Entity Details"
      description={`Entity ${entityId ?? ''}`}
      icon={FileText}
      backTo="/entities"
      contents={[
        'The entity’s name, type, observation count and creation date',
        'A graph of its connected entities; click a node to move to it',
        'Its relationships, incoming and outgoing',
        'Every observation recorded about it',
      ]}
    />
  );
}

export function RelationsScreen() {
  return (
    <PlannedScreen
      title="Relation Management"
      description="Connect entities with typed relations"
      icon={Share2}
      contents={[
        'A table of relations: from entity, relation, to entity, created',
        'Search and filter by relation type',
        'Create relations between two entities',
        'Edit a relation’s type or delete it',
      ]}
    />
  );
}

export function GraphScreen() {
  return (
    <PlannedScreen
      title="Knowledge Graph Visualization"
      description="Explore your whole knowledge graph"
      icon={Network}
      contents={[
        'An interactive, zoomable graph of entities and relations',
        'Node limit and traversal depth controls',
        'Details of the selected node',
        'Graph statistics and a legend of node types',
      ]}
    />
  );
}

export function BillingScreen() {
  return (
    <PlannedScreen
      title="Billing & Subscription"
      description="Manage your plan, payment methods and invoices"
      icon={CreditCard}
      contents={[
        'Your current plan, its status and next billing date',
        'Plan limits and included features',
        'Payment methods on file',
        'Monthly usage by operation',
        'Billing history with downloadable invoices',
        'Change, cancel or reactivate your subscription',
      ]}
    />
  );
}
